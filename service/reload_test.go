package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// A failed index sync on reload turns BM25 off with the reason; TF-IDF
// keeps serving.
func TestReloadSurvivesIndexFailure(t *testing.T) {
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	cfg := testConfig(t, root, filepath.Join(t.TempDir(), "ix.db"))
	cfg.Search.StaleDays = 30
	ctx := context.Background()
	l, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := l.Engine().Search(ctx, search.Request{Query: "sourdough", Limit: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search before failure: %v, %d hits", err, len(res.Hits))
	}
	if _, ok := res.Hits[0].Signals[rankers.SignalBM25]; !ok {
		t.Fatalf("BM25 not used before failure: %+v", res.Hits[0].Signals)
	}
	if err := l.Index().Close(); err != nil { // every later sync fails
		t.Fatal(err)
	}
	eng, err := l.Reload(ctx, nil)
	if err != nil {
		t.Fatalf("Reload after index failure: %v", err)
	}
	res, err = eng.Search(ctx, search.Request{Query: "sourdough", Limit: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search after failure: %v, %d hits", err, len(res.Hits))
	}
	if res.SignalErrors[rankers.SignalBM25] == "" {
		t.Errorf("BM25 failure not reported: %+v", res.SignalErrors)
	}
	if _, ok := res.Hits[0].Signals[rankers.SignalTFIDF]; !ok {
		t.Errorf("TF-IDF not serving: %+v", res.Hits[0].Signals)
	}
}

// TestReloadRereadsRules: a reload (after a write, or from the watcher)
// applies an edited .enquire/ignore and purges the index; an ignore file
// that became invalid fails the reload and leaves the engine in service.
func TestReloadRereadsRules(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	servicetest.WriteFile(t, filepath.Join(root, "Open.md"), []byte("open walrusqq"))
	servicetest.WriteFile(t, filepath.Join(root, "Journal", "day.md"), []byte("journal narwhalqq"))
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	cfg := testConfig(t, root, ixFile)
	cfg.Search.StaleDays, cfg.Privacy.MarkerKey = 30, "private"
	l, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Engine().Snapshot().Note("Journal/day.md") == nil {
		t.Fatal("journal hidden before any rule")
	}
	if len(servicetest.IndexFilesHolding(t, ixFile, "narwhalqq")) == 0 {
		t.Fatal("the journal's text is not in the index before the rule: the scan would prove nothing")
	}
	servicetest.WriteFile(t, filepath.Join(root, ".enquire", "ignore"), []byte("Journal/\n"))
	eng, err := l.Reload(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := eng.Snapshot()
	if snap.Note("Journal/day.md") != nil || snap.Privacy.HiddenNotes != 1 {
		t.Errorf("reload kept the journal: hidden %d", snap.Privacy.HiddenNotes)
	}
	if st := l.Synced(); st.Purged != 1 || !st.PurgedFile {
		t.Errorf("reload did not purge the index: %+v", st)
	}
	if leaks := servicetest.IndexFilesHolding(t, ixFile, "narwhalqq"); len(leaks) > 0 {
		t.Errorf("hidden text in %v after the reload", leaks)
	}
	servicetest.WriteFile(t, filepath.Join(root, ".enquire", "ignore"), []byte("Journal/\nbad[\n"))
	if _, err := l.Reload(ctx, nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("reload with a bad ignore line: %v", err)
	}
}
