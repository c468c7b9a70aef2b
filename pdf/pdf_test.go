package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// writeTemp writes data to a new file in a test temp directory.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pageTexts returns the text of every page.
func pageTexts(d *Document) []string {
	texts := make([]string, 0, len(d.Pages))
	for _, p := range d.Pages {
		texts = append(texts, p.Text)
	}
	return texts
}

// checkDocument verifies invariants every extracted document must meet.
func checkDocument(t testing.TB, d *Document) {
	t.Helper()
	if len(d.Pages) > d.NumPages {
		t.Errorf("%d pages read, NumPages = %d", len(d.Pages), d.NumPages)
	}
	for i, p := range d.Pages {
		if p.Number != i+1 {
			t.Errorf("page %d has Number %d", i+1, p.Number)
		}
		if !utf8.ValidString(p.Text) || strings.ContainsRune(p.Text, 0) {
			t.Errorf("page %d: text not clean UTF-8: %q", p.Number, p.Text)
		}
		if p.Text != strings.TrimSpace(p.Text) || strings.Contains(p.Text, "  ") || strings.Contains(p.Text, "\n\n") {
			t.Errorf("page %d: whitespace not normalised: %q", p.Number, p.Text)
		}
	}
}

func TestExtract(t *testing.T) {
	t.Parallel()
	text := func(lines ...string) genPage { return genPage{lines: lines} }
	tests := []struct {
		name      string
		pages     []genPage
		enc       encryptMode
		opts      Options
		want      []string // page texts
		numPages  int
		truncated bool
		hasText   bool
	}{
		{
			name:  "single page",
			pages: []genPage{text("Hello, world.")},
			want:  []string{"Hello, world."}, numPages: 1, hasText: true,
		},
		{
			name:  "multi page in order",
			pages: []genPage{text("page one"), text("page two"), text("page three"), text("page four")},
			want:  []string{"page one", "page two", "page three", "page four"}, numPages: 4, hasText: true,
		},
		{
			name:  "several lines",
			pages: []genPage{text("first   line", "  second line  ", "third")},
			want:  []string{"first line\nsecond line\nthird"}, numPages: 1, hasText: true,
		},
		{
			name:  "empty page in the middle is kept",
			pages: []genPage{text("before"), {}, text("after")},
			want:  []string{"before", "", "after"}, numPages: 3, hasText: true,
		},
		{
			name:  "image only",
			pages: []genPage{{image: true}, {image: true}},
			want:  []string{"", ""}, numPages: 2,
		},
		{
			name:  "text and image",
			pages: []genPage{{lines: []string{"caption"}, image: true}},
			want:  []string{"caption"}, numPages: 1, hasText: true,
		},
		{
			name:  "words positioned apart get a space, kerning does not split words",
			pages: []genPage{{content: "BT /F1 12 Tf 72 720 Td [(Hel) 20 (lo) -600 (W) 80 (orld)] TJ ET"}},
			want:  []string{"Hello World"}, numPages: 1, hasText: true,
		},
		{
			name:  "superscript stays on the line, new baseline starts a line",
			pages: []genPage{{content: "BT /F1 12 Tf 72 720 Td (x) Tj 5 Ts (2) Tj 0 Ts 10 0 Td ( = y) Tj 0 -20 Td (next) Tj ET"}},
			want:  []string{"x2 = y\nnext"}, numPages: 1, hasText: true,
		},
		{
			name:  "rotated text keeps its words",
			pages: []genPage{{content: "BT /F1 12 Tf 0 1 -1 0 300 100 Tm [(going) -700 (up)] TJ ET"}},
			want:  []string{"going up"}, numPages: 1, hasText: true,
		},
		{
			name:  "text in a form XObject",
			pages: []genPage{{content: "BT /F1 12 Tf 72 720 Td (before) Tj ET /Fm1 Do"}},
			want:  []string{"before\ninside a form"}, numPages: 1, hasText: true,
		},
		{
			name:  "self-drawing form XObject stops at the nesting limit",
			pages: []genPage{{content: "/Fm2 Do"}},
			want:  []string{strings.TrimSpace(strings.Repeat("deep ", maxFormDepth))}, numPages: 1, hasText: true,
		},
		{
			name:  "ToUnicode CMap maps codes",
			pages: []genPage{{content: "BT /F2 12 Tf 72 720 Td (A) Tj ET"}},
			want:  []string{"Z"}, numPages: 1, hasText: true,
		},
		{
			// Found by FuzzExtract: the library's tokenizer never returns
			// from a hex string left open at the end of a stream.
			name:  "ToUnicode CMap ending in an open hex string is ignored",
			pages: []genPage{{content: "BT /F3 12 Tf 72 720 Td (A) Tj ET"}},
			want:  []string{"A"}, numPages: 1, hasText: true,
		},
		{
			name:  "content stream ending in an open hex string is refused",
			pages: []genPage{text("fine"), {content: "BT /F1 12 Tf 72 720 Td (lost) Tj ET\n<48656C 6C"}, text("fine too")},
			want:  []string{"fine", "", "fine too"}, numPages: 3, hasText: true,
		},
		{
			name:  "content stream ending in an open hex string with a non-hex byte is refused",
			pages: []genPage{{content: "BT /F1 12 Tf 72 720 Td (lost) Tj ET\n<T\n\n"}},
			want:  []string{""}, numPages: 1,
		},
		{
			name:  "NUL and control codes are cleaned",
			pages: []genPage{{content: "BT /F1 12 Tf 72 720 Td (a\\000b\\tc) Tj ET"}},
			want:  []string{"a b c"}, numPages: 1, hasText: true,
		},
		{
			name:  "page whose content fails is kept empty",
			pages: []genPage{text("good"), {lines: []string{"lost"}, filter: "NoSuchDecode"}, text("also good")},
			want:  []string{"good", "", "also good"}, numPages: 3, hasText: true,
		},
		{
			name:  "max pages",
			pages: []genPage{text("one"), text("two"), text("three"), text("four"), text("five")},
			opts:  Options{MaxPages: 2},
			want:  []string{"one", "two"}, numPages: 5, truncated: true, hasText: true,
		},
		{
			name:  "max pages equal to page count is not truncated",
			pages: []genPage{text("one"), text("two")},
			opts:  Options{MaxPages: 2},
			want:  []string{"one", "two"}, numPages: 2, hasText: true,
		},
		{
			name:  "max text bytes",
			pages: []genPage{text("aaaa bbbb"), text("cccc dddd"), text("eeee")},
			opts:  Options{MaxTextBytes: 14},
			want:  []string{"aaaa bbbb", "cccc"}, numPages: 3, truncated: true, hasText: true,
		},
		{
			name:  "owner-password-only RC4-128 encryption is readable",
			pages: []genPage{text("secret plans"), text("page two")},
			enc:   encryptOwnerRC4,
			want:  []string{"secret plans", "page two"}, numPages: 2, hasText: true,
		},
		{
			name:  "owner-password-only AES-128 encryption is readable",
			pages: []genPage{text("secret plans"), text("page two")},
			enc:   encryptOwnerAES,
			want:  []string{"secret plans", "page two"}, numPages: 2, hasText: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeTemp(t, "doc.pdf", buildPDF(t, tt.pages, tt.enc))
			doc, err := Extract(context.Background(), path, tt.opts)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			checkDocument(t, doc)
			if got := pageTexts(doc); !slices.Equal(got, tt.want) {
				t.Errorf("page texts = %q, want %q", got, tt.want)
			}
			if doc.NumPages != tt.numPages {
				t.Errorf("NumPages = %d, want %d", doc.NumPages, tt.numPages)
			}
			if doc.Truncated != tt.truncated {
				t.Errorf("Truncated = %v, want %v", doc.Truncated, tt.truncated)
			}
			if doc.HasText() != tt.hasText {
				t.Errorf("HasText = %v, want %v", doc.HasText(), tt.hasText)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	t.Parallel()
	valid := buildPDF(t, []genPage{{lines: []string{"some text here"}}, {lines: []string{"more"}}}, encryptNone)
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	tests := []struct {
		name string
		data []byte
		opts Options
		want error
	}{
		{name: "random bytes", data: random, want: ErrCorrupt},
		{name: "random bytes after a PDF header", data: append([]byte("%PDF-1.4\n"), random...), want: ErrCorrupt},
		{name: "truncated", data: valid[:len(valid)/2], want: ErrCorrupt},
		{name: "truncated before startxref", data: valid[:len(valid)-20], want: ErrCorrupt},
		{name: "empty file", data: nil, want: ErrCorrupt},
		{name: "png image", data: png, want: ErrCorrupt},
		{name: "text file", data: []byte("# Not a PDF\n\nJust some markdown.\n"), want: ErrCorrupt},
		{name: "header only", data: []byte("%PDF-1.4\n%%EOF\n"), want: ErrCorrupt},
		{name: "user password", data: buildPDF(t, []genPage{{lines: []string{"x"}}}, encryptUserPass), want: ErrEncrypted},
		{name: "40-bit RC4, which the library decrypts wrongly", data: buildPDF(t, []genPage{{lines: []string{"x"}}}, encryptOwnerRC440), want: ErrEncrypted},
		{name: "unsupported encryption", data: buildPDF(t, []genPage{{lines: []string{"x"}}}, encryptUnsupported), want: ErrEncrypted},
		{name: "over max bytes", data: valid, opts: Options{MaxBytes: int64(len(valid) - 1)}, want: ErrTooLarge},
	}
	// Files that made the library loop forever or allocate gigabytes.
	w := &pdfWriter{}
	w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [] /Count 0 >>")
	prevLoop := w.bytes(1, "/Prev XREF ")
	hugeStart := bytes.Replace(valid, []byte("xref\n0 "), []byte("xref\n111111110 "), 1)
	tests = append(tests, []struct {
		name string
		data []byte
		opts Options
		want error
	}{
		{name: "xref /Prev chain loops", data: prevLoop, want: ErrCorrupt},
		{name: "xref subsection with a huge object number", data: hugeStart, want: ErrCorrupt},
		{name: "xref stream with a huge /Size", data: xrefStreamPDF("/Size 999999999"), want: ErrCorrupt},
		{name: "xref stream with a huge /Index", data: xrefStreamPDF("/Size 4 /Index [999999999 4]"), want: ErrCorrupt},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeTemp(t, "in.pdf", tt.data)
			doc, err := Extract(context.Background(), path, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Extract error = %v, want %v", err, tt.want)
			}
			if doc != nil {
				t.Errorf("document returned with error: %+v", doc)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestExtractMaxBytesAtLimit(t *testing.T) {
	t.Parallel()
	data := buildPDF(t, []genPage{{lines: []string{"fits"}}}, encryptNone)
	doc, err := Extract(context.Background(), writeTemp(t, "a.pdf", data), Options{MaxBytes: int64(len(data))})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if got := pageTexts(doc); !slices.Equal(got, []string{"fits"}) {
		t.Errorf("texts = %q", got)
	}
}

func TestExtractFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Extract(context.Background(), filepath.Join(dir, "missing.pdf"), Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error = %v, want fs.ErrNotExist", err)
	}
	if _, err := Extract(context.Background(), dir, Options{}); err == nil {
		t.Error("directory: no error")
	}
}

func TestExtractCancelled(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "a.pdf", buildPDF(t, []genPage{{lines: []string{"text"}}}, encryptNone))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	doc, err := Extract(ctx, path, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if doc != nil {
		t.Error("document returned for cancelled context")
	}
}

func TestExtractCyclicPageTree(t *testing.T) {
	t.Parallel()
	// The page tree node lists itself twice among its kids: a naive walk
	// never ends (and the library's Reader.Page would loop forever).
	w := &pdfWriter{}
	catalog := w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [2 0 R 2 0 R 5 0 R] /Count 3 >>")
	content := w.addStream("", []byte(textStream([]string{"loop"})))
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	w.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, content))
	path := writeTemp(t, "cycle.pdf", w.bytes(catalog, ""))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	doc, err := Extract(ctx, path, Options{MaxPages: 10})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	checkDocument(t, doc)
	if len(doc.Pages) == 0 || doc.Pages[0].Text != "loop" {
		t.Errorf("pages = %q", pageTexts(doc))
	}
}

func TestExtractCyclicParent(t *testing.T) {
	t.Parallel()
	// The page is its own parent and has no /Resources: the library's
	// Page.Resources would follow /Parent forever.
	w := &pdfWriter{}
	catalog := w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.add("<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>")
	w.addStream("", []byte(textStream([]string{"orphan"})))
	doc, err := Extract(context.Background(), writeTemp(t, "parent.pdf", w.bytes(catalog, "")), Options{})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if got := pageTexts(doc); !slices.Equal(got, []string{"orphan"}) {
		t.Errorf("texts = %q", got)
	}
}

func TestExtractFixture(t *testing.T) {
	t.Parallel()
	doc, err := Extract(context.Background(), filepath.Join("..", "testdata", "vault", "Attachments", "paper.pdf"), Options{})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	checkDocument(t, doc)
	want := []string{"Placeholder paper, page one.", "Placeholder paper, page two."}
	if got := pageTexts(doc); !slices.Equal(got, want) || doc.NumPages != 2 || doc.Truncated {
		t.Errorf("got %q (NumPages %d, Truncated %v), want %q", got, doc.NumPages, doc.Truncated, want)
	}
}

func TestHasText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  *Document
		want bool
	}{
		{"nil", nil, false},
		{"no pages", &Document{}, false},
		{"blank pages", &Document{Pages: []Page{{Number: 1}, {Number: 2, Text: " \n\u00a0"}}}, false},
		{"text on a later page", &Document{Pages: []Page{{Number: 1}, {Number: 2, Text: "x"}}}, true},
	}
	for _, tt := range tests {
		if got := tt.doc.HasText(); got != tt.want {
			t.Errorf("%s: HasText = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"  hello \t  world  ", "hello world"},
		{"line one\n\n\n  line two \r\nline three", "line one\nline two\nline three"},
		{"nul\x00byte", "nul byte"},
		{"invalid \xff\xfe utf8", "invalid utf8"},
		{"\ufb01nal e\ufb00ort \ufb02ow", "final effort flow"},
		{"brace\uf8f1\uf8f2 piece", "brace piece"},
		{"soft\u00adhyphen zero\u200bwidth \ufffd", "softhyphen zerowidth"},
		{"e\u0301t\u00e9", "\u00e9t\u00e9"}, // NFC composes
		{"no\u00a0break\u2028separator", "no break\nseparator"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOpenHexStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data string
		open bool
	}{
		{"BT (Hello) Tj ET", false},
		{"<48656C6C6F> Tj", false},
		{"<48656C", true},
		{"<48656C6", true},
		{"<T\n\n", true}, // an unpaired byte of any kind: the reader waits for its partner
		{"<T4", false},   // a complete non-hex pair makes the reader panic, not hang
		{"<41<", true},
		{"(a<b) Tj", false},
		{"<41 42\n 43 >", false},
		{"<< /A 1 >>", false},
		{"<4> <4", true},
	}
	for _, tt := range tests {
		var h openHexStrings
		// Feed byte by byte, as reads may split the data anywhere.
		for i := range len(tt.data) {
			h.feed([]byte(tt.data[i : i+1]))
		}
		if got := h.open(); got != tt.open {
			t.Errorf("open(%q) = %v, want %v", tt.data, got, tt.open)
		}
	}
}

func TestTruncateText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 0, ""},
		{"hello world", 6, "hello"},
		{"h\u00e9llo", 2, "h"}, // does not split é
		{"h\u00e9llo", 3, "h\u00e9"},
	}
	for _, tt := range tests {
		if got := truncateText(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateText(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// FuzzExtract checks that Extract never panics (and never hangs) on
// arbitrary input, and that what it returns meets the Document contract.
func FuzzExtract(f *testing.F) {
	f.Add(buildPDF(f, []genPage{{lines: []string{"Hello, world.", "second line"}}, {}, {image: true}}, encryptNone))
	f.Add(buildPDF(f, []genPage{{lines: []string{"encrypted"}}}, encryptOwnerRC4))
	f.Add(buildPDF(f, []genPage{{lines: []string{"encrypted"}}}, encryptOwnerAES))
	f.Add(buildPDF(f, []genPage{{content: "BT /F1 12 Tf 72 720 Td [(Hel) 20 (lo) -600 (World)] TJ 0 -14 Td (x) ' ET"}}, encryptNone))
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "vault", "Attachments", "paper.pdf")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Add([]byte("not a pdf"))
	// One file per fuzzing process, rewritten for every input: a fresh
	// t.TempDir per input costs more than Extract itself and slows the
	// minimisation of interesting inputs to a crawl. Inputs of one process
	// run one at a time.
	path := filepath.Join(f.TempDir(), "fuzz.pdf")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		doc, err := Extract(ctx, path, Options{MaxPages: 50, MaxTextBytes: 1 << 16})
		if err != nil {
			if doc != nil {
				t.Fatalf("document returned with error %v", err)
			}
			return
		}
		checkDocument(t, doc)
		total := 0
		for _, p := range doc.Pages {
			total += len(p.Text)
		}
		if total > 1<<16 {
			t.Fatalf("%d bytes of text, limit %d", total, 1<<16)
		}
	})
}

// BenchmarkExtract extracts every PDF under the directory named by
// ENQUIRE_BENCH_PDFS (for example a vault with real attachments).
func BenchmarkExtract(b *testing.B) {
	dir := os.Getenv("ENQUIRE_BENCH_PDFS")
	if dir == "" {
		b.Skip("ENQUIRE_BENCH_PDFS not set")
	}
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil || len(paths) == 0 {
		b.Skipf("no PDFs under ENQUIRE_BENCH_PDFS=%s: %v", dir, err)
	}
	ctx := context.Background()
	files := 0
	for b.Loop() {
		for _, path := range paths {
			// Errors are part of the workload (corrupt files are timed too).
			_, _ = Extract(ctx, path, Options{})
			files++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(files), "ms/file")
}
