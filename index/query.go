package index

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// maxTerms caps the OR clauses of one query (a 4096-character query could
// otherwise make thousands).
const maxTerms = 64

// MatchExpr turns what a user typed into a safe FTS5 query: words are
// ORed (and ranked by BM25), "quoted phrases" stay phrases, Chinese,
// Japanese and Korean runs become bigrams matched on the cjk column, and
// English stop words are dropped unless nothing else is left. Every term
// is double-quoted and holds only letters, digits and marks, so no input
// can produce an FTS5 syntax error. It returns "" when nothing searchable
// remains.
func MatchExpr(query string) string {
	return strings.Join(matchTerms(query), " OR ")
}

// matchTerms returns the double-quoted terms MatchExpr ORs, in order.
func matchTerms(query string) []string {
	if !utf8.ValidString(query) {
		query = strings.ToValidUTF8(query, " ")
	}
	var terms, stops []string
	seen := map[string]bool{}
	add := func(t string, stop bool) {
		if t == "" || seen[t] {
			return
		}
		seen[t] = true
		if stop {
			stops = append(stops, t)
		} else {
			terms = append(terms, t)
		}
	}
	for i, part := range strings.Split(query, `"`) {
		phrase := i%2 == 1 && i < strings.Count(query, `"`) // inside a closed pair
		words, grams := split(part)
		if phrase && len(words) > 1 && len(grams) == 0 {
			add(`"`+strings.Join(words, " ")+`"`, false)
			continue
		}
		for _, w := range words {
			add(`"`+w+`"`, english.IsStopWord(w))
		}
		for _, g := range grams {
			add(`"`+g+`"`, false)
		}
	}
	if len(terms) == 0 {
		terms = stops
	}
	return terms[:min(len(terms), maxTerms)]
}

// split cuts text into lower-cased words (letters, digits, marks) and the
// bigrams of its CJK runs.
func split(text string) (words, grams []string) {
	var cjk []rune
	flushCJK := func() {
		switch len(cjk) {
		case 0:
		case 1:
			grams = append(grams, string(cjk))
		default:
			for i := 0; i+1 < len(cjk); i++ {
				grams = append(grams, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	var word strings.Builder
	flushWord := func() {
		if word.Len() > 0 {
			words = append(words, strings.ToLower(word.String()))
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case analysis.IsCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (unicode.IsMark(r) && word.Len() > 0):
			flushCJK()
			word.WriteRune(r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return words, grams
}

// Hit is one matching chunk.
type Hit struct {
	Path               string
	Chunk              int
	Page               int
	LineStart, LineEnd int
	// Score is BM25, higher is better.
	Score float64
	// FileHash is the content hash of the file the chunk came from, to
	// tell an index row from a newer edit of the note.
	FileHash string
}

// pdfCache is the stored extraction of a PDF.
type pdfCache struct {
	Pages   []pdf.Page `json:"pages"`
	Skipped bool       `json:"skipped,omitempty"`
	// OCR lists the pages whose text OCR read, with settings OCRKey.
	OCR    []int  `json:"ocr,omitempty"`
	OCRKey string `json:"ocr_key,omitempty"`
}

// CachedPDF implements vault.PDFCache: the stored text of a PDF whose
// size and modification time are unchanged.
func (ix *Index) CachedPDF(ctx context.Context, path string, size int64, modTime time.Time) (vault.PDFText, bool) {
	var t vault.PDFText
	found := false
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT hash, warning, pdf FROM files WHERE path = ? AND kind = 'pdf' AND size = ? AND mtime = ? AND pdf IS NOT NULL`)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := bindAll(st, path, size, modTime.UnixNano()); err != nil {
			return err
		}
		if !st.Step() {
			return st.Err()
		}
		var pc pdfCache
		if err := json.Unmarshal([]byte(st.ColumnText(2)), &pc); err != nil {
			return err
		}
		t = vault.PDFText{Pages: pc.Pages, Hash: st.ColumnText(0), Warning: st.ColumnText(1), Skipped: pc.Skipped, OCR: pc.OCR, OCRKey: pc.OCRKey}
		found = true
		return nil
	})
	return t, found && err == nil
}

// bindAll binds args without running the statement.
func bindAll(st *sqlite3.Stmt, args ...any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case string:
			err = st.BindText(i+1, v)
		case int:
			err = st.BindInt(i+1, v)
		case int64:
			err = st.BindInt64(i+1, v)
		default:
			err = fmt.Errorf("bind %T", a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
