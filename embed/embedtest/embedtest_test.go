package embedtest

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

var _ embed.Embedder = (*Model)(nil)

// TestConcurrentCalls is run with -race: Embed must be safe for
// concurrent use, Calls included.
func TestConcurrentCalls(t *testing.T) {
	m := &Model{Name: "a"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, err := m.Embed(context.Background(), []string{"cars"}, embed.Query); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := m.Calls.Load(); got != 80 {
		t.Errorf("Calls = %d, want 80", got)
	}
}

func TestVectors(t *testing.T) {
	m := &Model{Name: "a"}
	got, err := m.Embed(context.Background(), []string{"automobile vehicle", "", "zebra"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if got[0][0] != 1 {
		t.Errorf("concept vector = %v", got[0])
	}
	for _, x := range got[1] {
		if x != 0 {
			t.Errorf("empty text: %v", got[1])
		}
	}
	var ss float64
	for _, x := range got[2] {
		ss += float64(x) * float64(x)
	}
	if math.Abs(ss-1) > 1e-6 {
		t.Errorf("|v|² = %v", ss)
	}
}
