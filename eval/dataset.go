// Package eval measures search quality on BEIR-layout datasets with the
// same pipeline obsidian_search uses, and computes the usual IR metrics
// (trec_eval conventions, so numbers match tools/ireval.py).
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Query is one evaluation query.
type Query struct {
	ID       string `json:"_id"`
	Text     string `json:"text"`
	Category string `json:"category,omitempty"`
}

// Qrels maps query id → document id → graded relevance.
type Qrels map[string]map[string]int

// Dataset is a BEIR folder: queries, qrels of one split, and the corpus as
// an Obsidian vault (a vault/ folder, or corpus.jsonl written out as notes).
type Dataset struct {
	Dir     string
	Split   string
	Queries []Query // only queries with qrels, in file order
	Qrels   Qrels
	// Vault is the folder to index; DocID maps a vault-relative note path
	// to the corpus id qrels use.
	Vault string
	DocID func(path string) string
	// cleanup removes a temporary vault.
	cleanup func() error
}

// Close removes the temporary vault written from corpus.jsonl, if any.
func (d *Dataset) Close() error {
	if d.cleanup == nil {
		return nil
	}
	return d.cleanup()
}

// Load reads a dataset. With corpus.jsonl each document becomes a note
// "<id>.md" (title in the frontmatter) in a temporary vault under tmpDir
// ("" for the system default); with vault/ the note paths are the ids.
func Load(ctx context.Context, dir, split, tmpDir string) (*Dataset, error) {
	d := &Dataset{Dir: dir, Split: split}
	qrels, err := readQrels(filepath.Join(dir, "qrels", split+".tsv"))
	if err != nil {
		return nil, err
	}
	d.Qrels = qrels
	if d.Queries, err = readQueries(filepath.Join(dir, "queries.jsonl"), qrels); err != nil {
		return nil, err
	}
	if v := vaultDir(dir); v != "" {
		d.Vault = v
		d.DocID = func(p string) string { return p }
		return d, nil
	}
	if err := d.writeCorpusVault(ctx, filepath.Join(dir, "corpus.jsonl"), tmpDir); err != nil {
		return nil, err
	}
	return d, nil
}

// readQrels reads BEIR (tab-separated, ids taken as they are) or TREC
// (whitespace-separated, ids unescaped with UnescapeDocID) judgements.
func readQrels(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qrels: %w", err)
	}
	defer f.Close()
	q := Qrels{}
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		text := sc.Text()
		fields := strings.Fields(text)
		if strings.Contains(text, "\t") { // BEIR: tab-separated, ids may hold spaces
			fields = strings.Split(strings.TrimRight(text, "\r"), "\t")
		} else {
			// Whitespace-separated (TREC) qrels can only carry an id with
			// spaces escaped, as WriteRun writes them: "My%20Note.md".
			for i := range fields {
				fields[i] = UnescapeDocID(fields[i])
			}
		}
		switch len(fields) {
		case 3: // BEIR: query-id corpus-id score
		case 4: // TREC: query-id iteration doc-id relevance
			fields = []string{fields[0], fields[2], fields[3]}
		case 0:
			continue
		default:
			return nil, fmt.Errorf("qrels %s line %d: want 3 (BEIR) or 4 (TREC) columns, got %d", path, line+1, len(fields))
		}
		grade, err := strconv.Atoi(fields[len(fields)-1])
		if err != nil {
			if line == 0 {
				continue // header
			}
			return nil, fmt.Errorf("qrels %s line %d: grade %q is not an integer", path, line+1, fields[len(fields)-1])
		}
		if q[fields[0]] == nil {
			q[fields[0]] = map[string]int{}
		}
		q[fields[0]][fields[1]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("qrels %s: %w", path, err)
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("qrels %s: no judgements", path)
	}
	return q, nil
}

func readQueries(path string, qrels Qrels) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	defer f.Close()
	var out []Query
	dec := json.NewDecoder(f)
	for {
		var q Query
		if err := dec.Decode(&q); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("queries %s: %w", path, err)
		}
		if _, judged := qrels[q.ID]; judged {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("queries %s: none of the queries has qrels", path)
	}
	return out, nil
}

// corpusDoc is one corpus.jsonl line.
type corpusDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// writeCorpusVault writes every corpus document as a note of a temporary
// vault (0700), the title as frontmatter so it is indexed as a title.
func (d *Dataset) writeCorpusVault(ctx context.Context, path, tmpDir string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("corpus: %w (a dataset needs corpus.jsonl or a vault/ folder)", err)
	}
	defer f.Close()
	dir, err := os.MkdirTemp(tmpDir, "enquire-eval-*")
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	d.cleanup = func() error { return os.RemoveAll(dir) }
	ids := map[string]string{} // file name → corpus id
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for n := 0; ; n++ {
		if n%256 == 0 && ctx.Err() != nil {
			d.Close()
			return ctx.Err()
		}
		var doc corpusDoc
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			d.Close()
			return fmt.Errorf("corpus %s: document %d: %w", path, n+1, err)
		}
		name := fileName(doc.ID)
		if prev, dup := ids[name+".md"]; dup {
			d.Close()
			return fmt.Errorf("corpus %s: ids %q and %q map to the same file name", path, prev, doc.ID)
		}
		ids[name+".md"] = doc.ID
		if err := os.WriteFile(filepath.Join(dir, name+".md"), noteText(doc), 0o600); err != nil {
			d.Close()
			return fmt.Errorf("corpus: %w", err)
		}
	}
	d.Vault = dir
	d.DocID = func(p string) string {
		if id, ok := ids[p]; ok {
			return id
		}
		return strings.TrimSuffix(p, ".md")
	}
	return nil
}

func noteText(doc corpusDoc) []byte {
	var b strings.Builder
	if doc.Title != "" {
		title, _ := json.Marshal(doc.Title) // a JSON string is valid YAML
		b.WriteString("---\ntitle: ")
		b.Write(title)
		b.WriteString("\n---\n")
	}
	b.WriteString(doc.Text)
	b.WriteByte('\n')
	return []byte(b.String())
}

// fileName makes a corpus id safe as a file name, keeping it readable.
func fileName(id string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
	if safe == "" || strings.HasPrefix(safe, ".") {
		safe = "_" + safe
	}
	return safe
}

// Categories returns the distinct query categories, sorted.
func (d *Dataset) Categories() []string {
	seen := map[string]bool{}
	for _, q := range d.Queries {
		if q.Category != "" {
			seen[q.Category] = true
		}
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// vaultDir is the dataset's vault/ folder, "" if it has none. A vault
// that is a symlink stored as a plain file holding the link's target (a
// git checkout with core.symlinks=false, or a copy that flattened links,
// as the shared vault-links sets are here) is followed too.
func vaultDir(dir string) string {
	p := filepath.Join(dir, "vault")
	info, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if info.IsDir() {
		return p
	}
	if !info.Mode().IsRegular() || info.Size() > 4096 {
		return ""
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	target := strings.TrimSpace(string(raw))
	if target == "" || strings.ContainsAny(target, "\n\x00") {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, filepath.FromSlash(target))
	}
	if info, err := os.Stat(target); err == nil && info.IsDir() {
		return target
	}
	return ""
}
