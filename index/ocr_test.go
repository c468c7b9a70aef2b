package index

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fakeOCR reads every page as the same words, counting real readings;
// like the command's reader it keeps its text in the index by hash.
type fakeOCR struct {
	key   string
	ix    *Index
	calls atomic.Int64
}

func (f *fakeOCR) Key() string { return f.key }

func (f *fakeOCR) Pages(ctx context.Context, _ *os.File, hash string, pages []int) ([]pdf.Page, error) {
	if got, ok := f.ix.CachedOCR(ctx, hash, f.key); ok {
		return got, nil
	}
	f.calls.Add(1)
	var out []pdf.Page
	for _, n := range pages {
		out = append(out, pdf.Page{Number: n, Text: "quartzite meridian"})
	}
	return out, f.ix.StoreOCR(ctx, hash, f.key, out)
}

// twoPages extracts every PDF as a text page and a scanned (empty) page.
func twoPages(context.Context, *os.File, pdf.Options) (*pdf.Document, error) {
	return &pdf.Document{NumPages: 2, Pages: []pdf.Page{{Number: 1, Text: "bakery receipt"}, {Number: 2}}}, nil
}

// TestOCRCachedAndRechecked walks one scanned PDF through the cases of
// the OCR cache: OCR turned on for an index made without it, unchanged,
// other OCR settings, the loader's snapshot (serve), and deletion.
func TestOCRCachedAndRechecked(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	scan := filepath.Join(root, "scan.pdf")
	if err := os.WriteFile(scan, []byte("%PDF-1.4 stand-in"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := open(t, root, filepath.Join(t.TempDir(), "v.db"), true)
	eng, deu := &fakeOCR{key: "eng", ix: ix}, &fakeOCR{key: "eng+deu", ix: ix}
	var none *fakeOCR
	tests := []struct {
		name      string
		ocr       *fakeOCR
		snapshot  bool // through vault.Load and SnapshotSource, as serve does
		remove    bool
		wantCalls int64 // real OCR readings in this step
		wantHit   bool  // the scanned page's words are searchable
		updated   int
	}{
		{"without OCR", none, false, false, 0, false, 0},
		{"OCR turned on: the unchanged PDF is read again", eng, false, false, 1, true, 1},
		{"unchanged: not read again", eng, false, false, 0, true, 0},
		{"serve start: cached", eng, true, false, 0, true, 0},
		{"other languages: read again", deu, false, false, 1, true, 1},
		{"OCR off: the text stays", none, false, false, 0, true, 0},
		{"deleted", none, false, true, 0, false, 0},
	}
	for _, tt := range tests {
		reader := vault.PDFReader{Extract: twoPages, Cache: ix}
		before := int64(0)
		if tt.ocr != nil {
			reader.OCR = tt.ocr
			before = tt.ocr.calls.Load()
		}
		if tt.remove {
			if err := os.Remove(scan); err != nil {
				t.Fatal(err)
			}
		}
		var src Source
		if tt.snapshot {
			snap, err := vault.Load(ctx, root, vault.Options{PDFs: true, PDF: reader})
			if err != nil {
				t.Fatal(err)
			}
			src = SnapshotSource(snap)
		} else {
			var err error
			if src, err = ix.DiskSource(ctx, 0, reader); err != nil {
				t.Fatal(err)
			}
		}
		st, err := ix.Sync(ctx, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Check(ctx); err != nil {
			t.Fatal(err)
		}
		if tt.ocr != nil {
			if got := tt.ocr.calls.Load() - before; got != tt.wantCalls {
				t.Errorf("%s: OCR read %d times, want %d", tt.name, got, tt.wantCalls)
			}
		}
		if st.Updated != tt.updated {
			t.Errorf("%s: %d updated, want %d (%+v)", tt.name, st.Updated, tt.updated, st)
		}
		hits := search(t, ix, "quartzite")
		if got := len(hits) > 0; got != tt.wantHit {
			t.Fatalf("%s: hit %v, want %v", tt.name, got, tt.wantHit)
		}
		if tt.wantHit && hits[0].Page != 2 {
			t.Errorf("%s: hit on page %d, want 2", tt.name, hits[0].Page)
		}
	}
	if n := ocrRows(t, ix); n != 0 {
		t.Errorf("%d OCR cache rows left after the PDF was deleted", n)
	}
}

func ocrRows(t *testing.T, ix *Index) int {
	t.Helper()
	n := 0
	err := ix.reader(context.Background(), func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT count(*) FROM ocr`)
		if err != nil {
			return err
		}
		defer st.Close()
		st.Step()
		n = st.ColumnInt(0)
		return st.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
