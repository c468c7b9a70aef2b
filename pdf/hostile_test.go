package pdf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// Regression tests for crafted files that made in-process extraction abort
// (fatal out-of-memory, stack overflow) or hang.

// extractWithin runs Extract and fails the test if it has not returned
// within limit (the goroutine is then abandoned).
func extractWithin(t *testing.T, data []byte, opts Options, limit time.Duration) (*Document, error) {
	t.Helper()
	path := writeTemp(t, "in.pdf", data)
	type res struct {
		doc *Document
		err error
	}
	done := make(chan res, 1)
	go func() {
		doc, err := Extract(context.Background(), path, opts)
		done <- res{doc, err}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			checkDocument(t, r.doc)
		}
		return r.doc, r.err
	case <-time.After(limit):
		t.Fatalf("Extract still running after %v", limit)
		return nil, nil
	}
}

// streamPages returns a file whose pages have the given content streams
// (dictionary entries and data), with Helvetica as /F1; w may hold objects
// already.
func streamPages(t *testing.T, w *pdfWriter, streams ...[2]string) []byte {
	t.Helper()
	pages := w.add("")
	catalog := w.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, s := range streams {
		content := w.addStream(s[0], []byte(s[1]))
		page := w.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pages, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	w.objs[pages-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	return w.bytes(catalog, "")
}

// plain returns an unfiltered content stream showing text.
func plain(text string) [2]string { return [2]string{"", textStream([]string{text})} }

// deflatedStream returns a deflated content stream with extra dictionary
// entries.
func deflatedStream(dict string, content []byte) [2]string {
	return [2]string{"/Filter /FlateDecode " + dict, string(deflated(content))}
}

func TestHostileDecodeParms(t *testing.T) {
	t.Parallel()
	content := []byte(textStream([]string{"lost"}))
	huge := "35184372088832"
	for _, dict := range []string{
		"/DecodeParms << /Predictor 12 /Columns " + huge + " >>",
		"/DecodeParms [<< /Predictor 12 /Columns " + huge + " >>]",
		"/DecodeParms << /Predictor 12 /Columns -5 >>",
		"/DecodeParms << /Predictor 12 /Columns 100 /Colors 100000 >>",
		"/DecodeParms << /Predictor 12 /Columns 100 /BitsPerComponent 1000 >>",
		"/DecodeParms << /Predictor 12 /Columns 1000000 /Colors 4 >>",
	} {
		data := streamPages(t, &pdfWriter{}, plain("before"), deflatedStream(dict, content), plain("after"))
		doc, err := extractWithin(t, data, Options{}, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", dict, err)
		}
		if got := pageTexts(doc); !slices.Equal(got, []string{"before", "", "after"}) {
			t.Errorf("%s: pages %q", dict, got)
		}
	}
	// A chain of filters, each of which the library sets up before reading.
	chain := "/Filter [" + strings.Repeat("/FlateDecode ", maxFilters+1) + "]"
	data := streamPages(t, &pdfWriter{}, [2]string{chain, "x"}, plain("after"))
	if doc, err := extractWithin(t, data, Options{}, 10*time.Second); err != nil || !slices.Equal(pageTexts(doc), []string{"", "after"}) {
		t.Errorf("long filter chain: %v, %v", doc, err)
	}
	// The PNG Up predictor with sane parameters still decodes.
	row := append([]byte{2}, content...)
	sane := deflatedStream(fmt.Sprintf("/DecodeParms << /Predictor 12 /Columns %d >>", len(content)), row)
	doc, err := extractWithin(t, streamPages(t, &pdfWriter{}, sane), Options{}, 10*time.Second)
	if err != nil || !slices.Equal(pageTexts(doc), []string{"lost"}) {
		t.Errorf("sane predictor: %q, %v", pageTexts(doc), err)
	}
}

func TestHostileCMaps(t *testing.T) {
	t.Parallel()
	const head = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> endcodespacerange "
	for name, cmap := range map[string]string{
		// The library loops the count given to beginbfchar at every
		// endbfchar, appending entries whatever the data.
		"huge count":              head + "9999999999 beginbfchar endbfchar endcmap",
		"count defined elsewhere": head + "/n 9999999999 def 5 pop n beginbfchar endbfchar endcmap",
		"repeated endbfchar":      head + "100000 beginbfchar" + strings.Repeat(" endbfchar", 2000) + " endcmap",
		"deep dictionary stack":   strings.Repeat("0 dict begin ", 1000) + head + "1 beginbfchar <41> <005A> endbfchar endcmap",
		"hostile parameters":      "",
	} {
		w := &pdfWriter{}
		cmapDict := ""
		data := []byte(cmap)
		if name == "hostile parameters" {
			cmapDict = "/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 35184372088832 >>"
			data = deflated([]byte(head + "1 beginbfchar <41> <005A> endbfchar endcmap"))
		}
		cm := w.addStream(cmapDict, data)
		font := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>", cm))
		// A simple font with /Encoding /Identity-H also has the library
		// read its /ToUnicode.
		idFont := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /Identity-H /ToUnicode %d 0 R >>", cm))
		content := fmt.Sprintf("BT /F%d 12 Tf 72 720 Td (A) Tj /F%d 12 Tf 0 -20 Td (A) Tj ET", font, idFont)
		pages := w.add("")
		catalog := w.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
		c := w.addStream("", []byte(content))
		page := w.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /Resources << /Font << /F%d %d 0 R /F%d %d 0 R >> >> /Contents %d 0 R >>", pages, font, font, idFont, idFont, c))
		w.objs[pages-1] = fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page)
		doc, err := extractWithin(t, w.bytes(catalog, ""), Options{}, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The CMap is ignored: codes read as Latin-1.
		if got := pageTexts(doc); !slices.Equal(got, []string{"A\nA"}) {
			t.Errorf("%s: pages %q", name, got)
		}
	}
}

func TestHostileOperandFlood(t *testing.T) {
	t.Parallel()
	text := []byte("BT /F1 12 Tf 72 720 Td (lost) Tj ET ")
	for name, content := range map[string][]run{
		// 60 MiB of "1 " deflate to about 120 KB; the library would stack
		// 31 million operands.
		"flood": repeated("1 ", 30<<20),
		// Over maxStreamBytes of white space: refused for its size alone.
		"spaces": repeated(" ", maxStreamBytes+1),
		// 200,000 dictionaries on the dictionary stack, each searched for
		// every operator after them.
		"dicts": append(repeated("0 dict begin ", 200000), repeated("q Q ", 100000)...),
		// The same with fewer operands, so that only the depth of the
		// dictionary stack gives it away.
		"dict literals": append(repeated("<< >> begin ", 100000), repeated("q ", 100000)...),
		// Values defined in a dictionary are pushed, not run, when named.
		"defined": append([]run{{[]byte("1 dict begin /q 1 def "), 1}}, repeated("q ", maxOperands+1)...),
		// A keyword inside an array is no operator: the library drops
		// the array and goes on.
		"arrays": repeated("1 1 1 1 [ foo ] ", maxOperands/4),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			z := deflatedRuns(append([]run{{text, 1}}, content...)...)
			data := streamPages(t, &pdfWriter{}, plain("before"), [2]string{"/Filter /FlateDecode", string(z)}, plain("after"))
			start := time.Now()
			doc, err := extractWithin(t, data, Options{}, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if got := pageTexts(doc); !slices.Equal(got, []string{"before", "", "after"}) {
				t.Errorf("pages %q", got)
			}
			t.Logf("refused in %v", time.Since(start))
		})
	}
}

func TestScannerCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		kind  streamKind
		data  string
		bad   bool
		open  bool
		count int
	}{
		{name: "operators reset", data: strings.Repeat("1 2 3 m ", 1000), count: 0},
		{name: "pending operands", data: "1 2 (x) /N [1 2] <41>", count: 8},
		{name: "dictionary", data: "<< /A 1 /B [2 3] >>", count: 7},
		{name: "keyword in array drops it", data: "[1 foo 2] 5", count: 5}, // [ 1, then 2 ] 5 at top level
		{name: "keyword in dictionary value", data: "<< /A foo >> Tj", count: 0},
		{name: "stray closers push null", data: "] >>", count: 2},
		{name: "dictionary defines keywords", data: "1 dict begin /x 1 def x x x", count: 7},
		{name: "dictionary ended", data: "1 dict begin /x 1 def end x x x", count: 0},
		{name: "deep begin", data: strings.Repeat("0 dict begin ", maxDictDepth+1), bad: true},
		{name: "open hex", data: "BT <41", open: true},
		{name: "open after <", data: "<", open: true},
		{name: "closed hex", data: "<41 42> Tj", count: 0},
		{name: "bad hex pair is not open", data: "<zz", count: 0},
		{name: "literal with escapes", data: `(a\)b\(c\\\101\
d) Tj`, count: 0},
		{name: "bad octal escape", data: `(\777) 1`, count: 1},
		{name: "name escape", data: "/A#20B /C#zz 1", count: 2},
		{name: "comment", data: "1 % 2 3 m\n4", count: 2},
		{name: "cmap counts everything", kind: cmapStream, data: "1 2 m 3 n", count: 5},
		{name: "cmap count", kind: cmapStream, data: "100 beginbfchar endbfchar endbfchar", count: 4},
		{name: "cmap huge count", kind: cmapStream, data: "200000 beginbfchar endbfchar", bad: true},
		{name: "cmap count from the stack", kind: cmapStream, data: "/n 200000 def x n beginbfchar endbfchar", bad: true},
	}
	for _, tt := range tests {
		s := psScanner{kind: tt.kind}
		for i := range len(tt.data) { // fed byte by byte, as reads may split anywhere
			s.feed([]byte(tt.data[i : i+1]))
		}
		s.finish()
		if s.bad != tt.bad || s.openAtEnd != tt.open || !tt.bad && !tt.open && s.operands != tt.count {
			t.Errorf("%s: bad %v open %v operands %d, want %v %v %d", tt.name, s.bad, s.openAtEnd, s.operands, tt.bad, tt.open, tt.count)
		}
	}
}

func TestContextCheckedOften(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := &interp{ctx: ctx}
	stopped := func(f func()) (n int) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		for n = 1; n <= 100000; n++ {
			f()
		}
		return n
	}
	if n := stopped(in.tick); n > ctxCheckOps || ctxCheckOps > 64 {
		t.Errorf("cancellation noticed after %d operators", n)
	}
	if n := stopped(in.tickGlyph); n > ctxCheckGlyphs {
		t.Errorf("cancellation noticed after %d glyphs", n)
	}
}

func TestHostileXrefStreams(t *testing.T) {
	t.Parallel()
	// The file as generated is fine, predictor and object stream included.
	doc, err := extractWithin(t, onePageXref("", "compressed").bytes(t), Options{}, 10*time.Second)
	if err != nil || !slices.Equal(pageTexts(doc), []string{"compressed"}) {
		t.Fatalf("valid file: %q, %v", pageTexts(doc), err)
	}
	plainXref := onePageXref("", "compressed")
	plainXref.predictor = false
	if doc, err := extractWithin(t, plainXref.bytes(t), Options{}, 10*time.Second); err != nil || !slices.Equal(pageTexts(doc), []string{"compressed"}) {
		t.Fatalf("valid file, unencoded xref stream: %q, %v", pageTexts(doc), err)
	}

	type bad struct {
		f    *xrefFile
		want string // in the error
	}
	tests := map[string]bad{}
	add := func(name string, f *xrefFile, want string) { tests[name] = bad{f, want} }
	with := func(extra string) *xrefFile {
		f := onePageXref("", "x")
		f.extra = extra
		return f
	}
	add("huge /W entry", with("/W [1 35184372088832 1]"), "field of 35184372088832 bytes")
	add("huge /W row", with("/W [1 8 8 8 8 8]"), "rows of more than 32 bytes")
	add("negative /W entry", with("/W [1 -4 2]"), "field of -4 bytes")
	add("xref stream predictor columns", with("/DecodeParms << /Predictor 12 /Columns 35184372088832 >>"), "unbounded stream decoding parameters")
	// Rows of zero bytes cost the library nothing to read but time: their
	// total is bounded.
	add("entries without bytes", with("/W [0 0 0] /Index ["+strings.Repeat("0 1000000 ", 40)+"]"), "list more than")

	// Object streams.
	add("object stream with a huge /N", missingFrom(onePageXref("/N 999999999", "x")), "declares 999999999 objects")
	add("object stream extending itself", missingFrom(onePageXref("/Extends 5 0 R", "x")), "chain of object stream 5 loops")
	f := missingFrom(onePageXref("/Extends 7 0 R", "x"))
	f.add(xobj{stream: true, body: "/Type /ObjStm /N 0 /First 1 /Extends 5 0 R", data: []byte(" ")})
	add("object streams extending each other", f, "loops")
	f = onePageXref("", "x")
	f.entries = map[int][3]uint64{5: {2, 5, 0}}
	add("object stream stored in itself", f, "object stream 5 is stored in an object stream")
	f = onePageXref("", "x")
	f.add(xobj{stream: true, body: "/Type /ObjStm /N 1 /First 4", data: []byte("5 0 << >>")})
	f.entries = map[int][3]uint64{5: {2, 7, 0}, 7: {2, 5, 0}}
	add("object streams stored in each other", f, "is stored in an object stream")
	f = onePageXref("/Length 7 0 R", "x")
	f.add(xobj{body: "100", in: 5})
	add("object stream length stored in itself", f, "entry 7 0 R is stored in an object stream")
	add("object stream predictor columns", onePageXref("/DecodeParms << /Predictor 12 /Columns 35184372088832 >>", "x"), "unbounded stream decoding parameters")
	add("object stream decoding to more than maxStreamBytes", bigObjStm(), "decodes to more than")

	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := extractWithin(t, tt.f.bytes(t), Options{}, 10*time.Second)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrCorrupt with %q", err, tt.want)
			}
		})
	}
}

// missingFrom makes the xref of f claim that the page tree (object 2) is
// in the object stream, where it is not: the library then reads all /N
// entries and follows /Extends looking for it.
func missingFrom(f *xrefFile) *xrefFile {
	f.objs[1].missing = true
	return f
}

// bigObjStm returns a file whose object stream decodes to over
// maxStreamBytes (white space after the objects).
func bigObjStm() *xrefFile {
	f := &xrefFile{root: 1}
	f.add(xobj{in: 3, missing: true})
	f.add(xobj{in: 3, missing: true})
	objs := "1 0 2 34 << /Type /Catalog /Pages 2 0 R >> << /Type /Pages /Kids [] /Count 0 >>"
	f.add(xobj{raw: true, stream: true, body: "/Type /ObjStm /N 2 /First 9 /Filter /FlateDecode",
		data: deflatedRuns(append([]run{{[]byte(objs), 1}}, repeated(" ", maxStreamBytes)...)...)})
	return f
}

func TestPartialTextKept(t *testing.T) {
	t.Parallel()
	content := []byte(textStream([]string{"kept", "too"}))
	z := deflated(content)
	noAdler := z[:len(z)-4]
	// A deflated stream missing its Adler-32 checksum: the library panics
	// at its end.
	data := streamPages(t, &pdfWriter{}, [2]string{"/Filter /FlateDecode", string(noAdler)}, plain("next page"))
	doc, err := extractWithin(t, data, Options{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := pageTexts(doc); !slices.Equal(got, []string{"kept\ntoo", "next page"}) {
		t.Errorf("missing Adler-32: pages %q", got)
	}

	// Cut in the middle: the text before the cut stays.
	cut := deflated([]byte(textStream([]string{"first"}) + strings.Repeat("q Q ", 20000) + textStream([]string{"second"})))
	data = streamPages(t, &pdfWriter{}, [2]string{"/Filter /FlateDecode", string(cut[:len(cut)/2])})
	if doc, err = extractWithin(t, data, Options{}, 10*time.Second); err != nil || !slices.Equal(pageTexts(doc), []string{"first"}) {
		t.Errorf("truncated stream: %q, %v", pageTexts(doc), err)
	}

	// A form XObject with a broken stream ends only itself.
	doc, err = extractWithin(t, formFile(t), Options{}, 10*time.Second)
	if err != nil || !slices.Equal(pageTexts(doc), []string{"before\nafter"}) {
		t.Errorf("broken form: %q, %v", pageTexts(doc), err)
	}
}

// formFile returns a page that draws a form XObject whose deflated stream
// is cut short, between two lines of text.
func formFile(t *testing.T) []byte {
	w := &pdfWriter{}
	catalog := w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [4 0 R] /Count 1 >>")
	w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	w.add("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> /XObject << /Fm 5 0 R >> >> /Contents 6 0 R >>")
	z := deflated([]byte(textStream([]string{"in form"}) + strings.Repeat("q Q ", 1000)))
	w.addStream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter /FlateDecode", z[:len(z)/2])
	w.addStream("", []byte("BT /F1 12 Tf 72 720 Td (before) Tj ET /Fm Do BT /F1 12 Tf 72 600 Td (after) Tj ET"))
	return w.bytes(catalog, "")
}

func TestHugeOptions(t *testing.T) {
	t.Parallel()
	data := buildPDF(t, []genPage{{lines: []string{"one"}}, {lines: []string{"two"}}}, encryptNone)
	doc, err := extractWithin(t, data, Options{MaxBytes: math.MaxInt64, MaxPages: math.MaxInt, MaxTextBytes: math.MaxInt}, 10*time.Second)
	if err != nil || !slices.Equal(pageTexts(doc), []string{"one", "two"}) || doc.Truncated || doc.NumPages != 2 {
		t.Fatalf("huge limits: %+v, %v", doc, err)
	}
	if got := collectLimit(math.MaxInt); got != math.MaxInt {
		t.Errorf("collectLimit(MaxInt) = %d", got)
	}
	if got := collectLimit(100); got != 2*100+4096 {
		t.Errorf("collectLimit(100) = %d", got)
	}
	if got := walkBudget(math.MaxInt); got != maxWalkNodes {
		t.Errorf("walkBudget(MaxInt) = %d", got)
	}
	if got := walkBudget(2000); got != 30000 {
		t.Errorf("walkBudget(2000) = %d", got)
	}
}
