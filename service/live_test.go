package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// testConfig is the vault at root with its own index file, read and
// searched with the defaults, as the commands open it without flags.
func testConfig(t *testing.T, root, ixFile string) Config {
	t.Helper()
	real, err := vault.RealRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Root: real, MaxFileSize: 1 << 20, Search: search.Options{Chunk: chunk.DefaultOptions},
		Index: IndexConfig{Path: ixFile}, Models: testModels{}}
}

// testModels opens models by alias, the vault model from next to the
// index.
type testModels struct{}

func (testModels) Open(ctx context.Context, alias string, ix *index.Index) (embed.Embedder, error) {
	return models.Open(ctx, alias, models.Options{VaultModel: index.VaultModelPath(ix.Path())})
}

func (m testModels) OpenOrLearn(ctx context.Context, alias string, ix *index.Index, _ index.Source) (embed.Embedder, error) {
	return m.Open(ctx, alias, ix)
}

// liveVault serves root with a persistent index and the watcher on, as
// serve does (with a short quiet period to keep the test quick).
type liveVault struct {
	*servicetest.Live
	l *Vault
}

func startLive(t *testing.T, root string, opts watch.Options) *liveVault {
	t.Helper()
	return startLiveWith(t, testConfig(t, root, filepath.Join(t.TempDir(), "live.db")), opts)
}

func startLiveWith(t *testing.T, cfg Config, opts watch.Options) *liveVault {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &liveVault{Live: servicetest.Follow(t, l, opts), l: l}
}

// TestLiveEqualsFresh is the live vault's equivalence test: random
// creates, edits, deletes, renames and folder moves made on disk while
// the watcher runs; after each batch the served engine must answer
// exactly as a server started on the same files — notes, links,
// backlinks, tags, hits and scores with BM25, and the index rows.
func TestLiveEqualsFresh(t *testing.T) {
	t.Parallel() // every vault has its own folder, index and watcher
	vaults := map[string]func(t *testing.T) string{
		"fixture": func(t *testing.T) string { return vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")) },
		"generated": func(t *testing.T) string {
			root := t.TempDir()
			vaulttest.Generate(t, root, 1200, 3)
			real, err := filepath.EvalSymlinks(root)
			if err != nil {
				t.Fatal(err)
			}
			return real
		},
	}
	seeds := map[string][]uint64{"fixture": {21, 22}, "generated": {23}}
	if raceEnabled { // the storm test covers concurrency; one seed checks the rest
		seeds = map[string][]uint64{"fixture": {21}}
	}
	for name, mk := range vaults {
		for _, seed := range seeds[name] {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				root := mk(t)
				lv := startLive(t, root, watch.Options{Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
				m := vaulttest.NewMutator(t, root, seed)
				for batch := range 8 {
					for range 1 + batch%4 {
						m.Step()
					}
					lv.Settle(t, root, batch)
					want := freshEngine(t, root)
					if diff := enginetest.Diff(ctx, lv.Engine(), want.eng, enginetest.Queries); diff != "" {
						t.Fatalf("seed %d batch %d: the live engine differs from a fresh start: %s", seed, batch, diff)
					}
					if diff := servicetest.IndexDiff(t, lv.l, want); diff != "" {
						t.Fatalf("seed %d batch %d: the live index differs from a fresh one: %s", seed, batch, diff)
					}
				}
			})
		}
	}
}

// freshEngine starts a vault from scratch with its own new index.
func freshEngine(t *testing.T, root string) *Vault {
	t.Helper()
	return freshLoad(t, testConfig(t, root, filepath.Join(t.TempDir(), "fresh.db")))
}

// freshLoad opens cfg (a vault with its own new index) and closes it when
// the test ends.
func freshLoad(t *testing.T, cfg Config) *Vault {
	t.Helper()
	l := mustLoad(t, cfg)
	t.Cleanup(func() { l.Close() })
	return l
}

// mustLoad opens cfg with a silent log; the caller closes it (a close
// saves the engine state when a save is due).
func mustLoad(t *testing.T, cfg Config) *Vault {
	t.Helper()
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLiveStormWhileSearching searches and reads while the vault changes
// under the watcher (run with -race): every answer comes from one
// consistent engine — each hit is a note of the snapshot that answered,
// with a valid chunk.
func TestLiveStormWhileSearching(t *testing.T) {
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	lv := startLive(t, root, watch.Options{Quiet: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond})
	m := vaulttest.NewMutator(t, root, 99)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				e := lv.Engine()
				q := enginetest.Queries[(i+w)%len(enginetest.Queries)]
				gran := []string{search.GranularityNote, search.GranularityBlock}[i%2]
				res, err := e.Search(ctx, search.Request{Query: q, Limit: 10, GraphBoost: true, Granularity: gran})
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				if err := consistent(e, res); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 150 {
		m.Step()
		time.Sleep(time.Millisecond)
	}
	lv.Settle(t, root, 0)
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := freshEngine(t, root)
	if diff := enginetest.Diff(context.Background(), lv.Engine(), want.eng, enginetest.Queries); diff != "" {
		t.Fatalf("after the storm: %s", diff)
	}
}

func consistent(e *search.Engine, res *search.Result) error {
	snap := e.Snapshot()
	for _, h := range res.Hits {
		i, ok := snap.NoteIDExact(h.Path)
		if !ok || i != h.Note {
			return fmt.Errorf("hit %s (note %d) is not in the snapshot that answered", h.Path, h.Note)
		}
		if _, ok := e.HitChunk(context.Background(), h, ""); h.Chunk != rankers.NoChunk && !ok {
			return fmt.Errorf("hit %s chunk %d is not one of its note's chunks", h.Path, h.Chunk)
		}
	}
	return nil
}

// testWriter logs through t (a live failure shows what the server said).
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// TestLivePrivacy: a note that marks itself private, and a folder a new
// .enquire/ignore rule hides, disappear from answers and from the index
// within one change set.
func TestLivePrivacy(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	cfg := testConfig(t, root, filepath.Join(t.TempDir(), "live.db"))
	cfg.Privacy.MarkerKey = "private"
	lv := startLiveWith(t, cfg, watch.Options{Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	if lv.Engine().Snapshot().Note("Home.md") == nil || lv.Engine().Snapshot().Note("Cooking/Sourdough Bread.md") == nil {
		t.Fatal("fixture notes missing before any rule")
	}
	if err := os.WriteFile(filepath.Join(root, "Home.md"), []byte("---\nprivate: true\n---\n# Home\nzqxsecretcanary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lv.Settle(t, root, 1)
	res, err := lv.Engine().Search(ctx, search.Request{Query: "zqxsecretcanary", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if lv.Engine().Snapshot().Note("Home.md") != nil || len(res.Hits) != 0 {
		t.Fatalf("a note marked private is still served: %v", res.Hits)
	}
	if err := os.MkdirAll(filepath.Join(root, ".enquire"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".enquire", "ignore"), []byte("Cooking/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lv.Settle(t, root, 2)
	for deadline := time.Now().Add(10 * time.Second); lv.Engine().Snapshot().Note("Cooking/Sourdough Bread.md") != nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a folder hidden by a new .enquire/ignore rule is still served")
		}
	}
	rows, err := lv.l.Index().Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Path == "Home.md" || strings.HasPrefix(r.Path, "Cooking/") {
			t.Errorf("the index still holds %s", r.Path)
		}
	}
	if n := lv.Engine().Snapshot().Privacy.HiddenNotes; n < 2 {
		t.Errorf("hidden notes counted %d, want at least 2", n)
	}
}

// TestLiveEmbeddings: with vectors in the index (the built-in model), a
// live change embeds the changed chunks and the dense signal answers as
// after a fresh start.
func TestLiveEmbeddings(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	cfg := testConfig(t, root, filepath.Join(t.TempDir(), "live.db"))
	cfg.BuildEmbeddings = "builtin"
	lv := startLiveWith(t, cfg, watch.Options{Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	if _, ok := lv.Engine().EmbeddingModel(); !ok {
		t.Fatal("no embeddings signal at start")
	}
	m := vaulttest.NewMutator(t, root, 31)
	for batch := range 3 {
		for range 3 {
			m.Step()
		}
		lv.Settle(t, root, batch)
		fresh := testConfig(t, root, filepath.Join(t.TempDir(), "fresh.db"))
		fresh.BuildEmbeddings = "builtin"
		want, err := Open(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		if got, exp := lv.Engine().Info().Vectors, want.eng.Info().Vectors; got != exp {
			t.Fatalf("batch %d: %d vectors live, %d fresh", batch, got, exp)
		}
		if diff := enginetest.Diff(ctx, lv.Engine(), want.eng, enginetest.Queries); diff != "" {
			t.Fatalf("batch %d: %s", batch, diff)
		}
		for _, q := range enginetest.Queries { // the dense signal alone ranks the same
			req := search.Request{Query: q, Limit: 10, Signals: []string{"embeddings"}, Granularity: search.GranularityBlock}
			a, errA := lv.Engine().Search(ctx, req)
			b, errB := want.eng.Search(ctx, req)
			if errA != nil || errB != nil {
				t.Fatalf("embeddings search %q: %v, %v", q, errA, errB)
			}
			for i := range min(len(a.Hits), len(b.Hits)) {
				if a.Hits[i].Path != b.Hits[i].Path && a.Hits[i].Score != b.Hits[i].Score {
					t.Fatalf("batch %d, %q: dense hit %d %s %.5f live vs %s %.5f fresh", batch, q, i, a.Hits[i].Path, a.Hits[i].Score, b.Hits[i].Path, b.Hits[i].Score)
				}
			}
		}
		want.Close()
	}
}
