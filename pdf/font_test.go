package pdf

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	lpdf "github.com/ledongthuc/pdf"
)

// valueIn returns the object obj as the library reads it from a file.
func valueIn(t *testing.T, obj string) lpdf.Value {
	t.Helper()
	w := &pdfWriter{}
	w.add(fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /X %s >>", obj))
	w.add("<< /Type /Pages /Kids [] /Count 0 >>")
	data := w.bytes(1, "")
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return r.Trailer().Key("Root").Key("X")
}

// refWidth is the width of code by scanning the runs of a /W array given
// as Go values, the first run starting lowest (earliest on a tie) winning.
func refWidth(runs [][3]int, arrays map[int][]int, code int, def float64) float64 {
	best, bestLo := -1, 0
	for i, r := range runs {
		lo, hi := r[0], r[1]
		if ws, ok := arrays[i]; ok {
			hi = lo + len(ws) - 1
		}
		if code >= lo && code <= hi && (best < 0 || lo < bestLo) {
			best, bestLo = i, lo
		}
	}
	if best < 0 {
		return def
	}
	if ws, ok := arrays[best]; ok {
		return float64(ws[code-runs[best][0]])
	}
	return float64(runs[best][2])
}

func TestCIDWidths(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		var runs [][3]int
		arrays := map[int][]int{}
		var b strings.Builder
		for i := range 40 {
			lo := rng.IntN(300) - 20
			if round == 0 {
				lo = 70000 + i // beyond two-byte codes: ignored
			}
			if rng.IntN(2) == 0 {
				ws := make([]int, rng.IntN(30))
				for j := range ws {
					ws[j] = rng.IntN(1000)
				}
				arrays[len(runs)] = ws
				runs = append(runs, [3]int{lo, 0, 0})
				fmt.Fprintf(&b, "%d %v ", lo, strings.ReplaceAll(fmt.Sprint(ws), ",", ""))
				continue
			}
			hi, w := lo+rng.IntN(50)-5, rng.IntN(1000)
			runs = append(runs, [3]int{lo, hi, w})
			fmt.Fprintf(&b, "%d %d %d ", lo, hi, w)
		}
		f := &font{composite: true, defWidth: 777, cidWidths: parseCIDWidths(valueIn(t, "["+b.String()+"]"))}
		for i := 1; i < len(f.cidWidths); i++ {
			if f.cidWidths[i].lo <= f.cidWidths[i-1].hi {
				t.Fatalf("runs %v and %v overlap", f.cidWidths[i-1], f.cidWidths[i])
			}
		}
		for code := -5; code < 400; code++ {
			want := refWidth(runs, arrays, code, 777)
			if code < 0 {
				want = 777
			}
			if got := f.width(code); got != want {
				t.Fatalf("round %d: width(%d) = %v, want %v (W = [%s])", round, code, got, want, b.String())
			}
		}
	}
}

// cidFontPDF returns a page showing every two-byte code once with a Type0
// font whose /W array has a run for each code (wide) or one for all.
func cidFontPDF(wide bool) []byte {
	var ws, codes strings.Builder
	for c := range 1 << 16 {
		if wide {
			fmt.Fprintf(&ws, "%d [%d] ", c, 500+c%7)
		}
		fmt.Fprintf(&codes, "%04X", c)
	}
	if !wide {
		ws.WriteString("0 65535 500")
	}
	w := &pdfWriter{}
	w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.add("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>")
	w.add("<< /Type /Font /Subtype /Type0 /BaseFont /Wide /Encoding /UniGB-UCS2-H /DescendantFonts [5 0 R] >>")
	w.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Wide /W [" + ws.String() + "] >>")
	w.addStream("", []byte("BT /F1 1 Tf 0 0 Td <"+codes.String()+"> Tj ET"))
	return w.bytes(1, "")
}

func TestWideCIDFontIsFast(t *testing.T) {
	t.Parallel()
	// Scanning the 65,536 runs for each of 65,536 codes took 25 times as
	// long as the same page with a single run (300 times with the race
	// detector); a binary search adds about the parsing of the runs.
	timed := func(wide bool) time.Duration {
		start := time.Now()
		doc, err := extractWithin(t, cidFontPDF(wide), Options{}, 120*time.Second)
		if err != nil || !doc.HasText() {
			t.Fatalf("wide %v: %v, text %v", wide, err, doc.HasText())
		}
		return time.Since(start)
	}
	one, wide := timed(false), timed(true)
	t.Logf("one run: %v, 65,536 runs: %v", one, wide)
	if wide > 8*one+time.Second {
		t.Errorf("65,536 runs took %v, one run %v", wide, one)
	}
}

func TestFontsCachedPerDocument(t *testing.T) {
	t.Parallel()
	// Three pages whose resources name the same font object differently,
	// and a form XObject that uses it too.
	w := &pdfWriter{}
	w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>")
	w.add("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents 7 0 R >>")
	w.add("<< /Type /Page /Parent 2 0 R /Resources << /Font << /A 6 0 R >> >> /Contents 8 0 R >>")
	w.add("<< /Type /Page /Parent 2 0 R /Resources << /XObject << /Fm 9 0 R >> >> /Contents 10 0 R >>")
	w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	w.addStream("", []byte("BT /F1 12 Tf (abc) Tj ET"))
	w.addStream("", []byte("BT /A 12 Tf (abd) Tj ET"))
	w.addStream("/Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources << /Font << /F9 6 0 R >> >>", []byte("BT /F9 12 Tf (be) Tj ET"))
	w.addStream("", []byte("/Fm Do"))
	r, err := openReader(w.bytes(1, ""))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := extractPages(context.Background(), r, Options{}.withDefaults())
	if err != nil || !slices.Equal(pageTexts(doc), []string{"abc", "abd", "be"}) {
		t.Fatalf("pages %q, %v", pageTexts(doc), err)
	}
	// Run again with a cache of our own to look into it.
	pages, _, _, _ := collectPages(context.Background(), r, 10)
	fonts := newFontCache()
	for _, p := range pages {
		if _, _, err := pageText(context.Background(), p, 1<<20, fonts); err != nil {
			t.Fatal(err)
		}
	}
	if len(fonts.fonts) != 1 || fonts.glyphs != 5 {
		t.Errorf("%d fonts cached with %d glyphs, want 1 font with the 5 codes a-e", len(fonts.fonts), fonts.glyphs)
	}
}
