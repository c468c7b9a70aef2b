package index

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// copyMinGap is the least time between the end of one in-memory BM25 build
// and the start of the next; copyGapFactor makes the gap at least that many
// build durations. Together they bound the background CPU a stream of
// edits can cost (a build of the 13k-note vault takes about a second); in
// between, searches are scored from SQLite reads, with the same results.
// A build also waits until the index has not changed for copyQuiet: under
// a stream of edits (a sync every few hundred milliseconds) a copy would
// be stale before it was done, so none is built until the edits pause.
// (The index's own writes do not make the copy stale: it follows them,
// postingstrack.go; a build is needed after another process's writes, or when
// the followed changes outgrow the overlay's bound.)
const (
	copyMinGap    = 2 * time.Second
	copyGapFactor = 3
	copyQuiet     = 2 * time.Second
)

// BM25 is the index's BM25 search (Index.BM25): FTS5 is the store of
// record of the postings, and BM25 keeps the postings copy, an in-memory
// copy of what FTS5's bm25() reads (postingsCopy), that scores a search
// without visiting SQLite, with the same results. It holds the copy, the
// background build that refreshes it when the index changes, the
// following of the index's own writes (postingstrack.go) and the query
// tokenizer. Its exported methods are Search, the copy's lifecycle
// (EnsurePostings, BuildPostings) and its saving in the engine state
// (EncodePostings, EncodePostingsStamped, AdoptPostings), and
// PostingsSearches.
type BM25 struct {
	ix *Index // the store the postings are read from

	idx atomic.Pointer[postingsCopy]
	// prev is the copy before the last live change (postingstrack.go), for
	// searches whose snapshot predates that change's commit.
	prev atomic.Pointer[postingsCopy]

	mu       sync.Mutex
	building bool
	built    chan struct{} // closed when the running build ends
	closed   bool
	off      bool // never build or use it (tests of the SQLite path)
	next     time.Time
	wg       sync.WaitGroup
	// seen is the last stale stamp a search met, since when it was seen.
	seen    string
	since   time.Time
	noQuiet bool // build at the first stale search (tests)
	noDelta bool // never follow a write: it makes the copy stale (tests)
	// overlayMin, when not 0, replaces copyOverlayMin (tests).
	overlayMin int

	tx     copyTx        // the running write transaction's FTS5 changes (under Index.writeMu)
	rowTok *rowTokenizer // their terms (under Index.writeMu)

	tokOnce sync.Once
	tok     *queryTokenizer
	tokErr  error

	stmts   connStmts    // the stamp query and the SQLite scoring reads, prepared per read connection
	scratch sync.Pool    // *scratch: per-search accumulators
	used    atomic.Int64 // searches answered from memory (for tests)
}

// current returns the in-memory copy if it was built from (or followed
// the writes up to) the snapshot c reads, else nil.
func (bm *BM25) current(c *sqlite3.Conn) (*postingsCopy, error) {
	m := bm.idx.Load()
	if m == nil {
		return nil, nil
	}
	for _, m := range []*postingsCopy{m, bm.prev.Load()} {
		if m == nil {
			continue
		}
		if same, err := bm.stampIs(c, m.stamp); err != nil || same {
			if err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	return nil, nil
}

// stampIs reports whether the snapshot c reads has the given FTS5 stamp.
func (bm *BM25) stampIs(c *sqlite3.Conn, stamp string) (bool, error) {
	return sameStamp(func(fn func([]byte)) error { return bm.stmts.each(c, fn) }, stamp)
}

// tokenizer returns the query tokenizer, opening it on first use.
func (bm *BM25) tokenizer() (*queryTokenizer, error) {
	bm.tokOnce.Do(func() { bm.tok, bm.tokErr = newQueryTokenizer(context.Background(), bm.ix.settings.Tokenizer) })
	return bm.tok, bm.tokErr
}

// quietSince reports whether the snapshot c reads has been the one
// searches saw for copyQuiet, i.e. the index has not changed for that long.
func (bm *BM25) quietSince(c *sqlite3.Conn) bool {
	stamp, err := readStamp(c)
	if err != nil {
		return false
	}
	bm.mu.Lock()
	defer bm.mu.Unlock()
	if stamp != bm.seen {
		bm.seen, bm.since = stamp, time.Now()
	}
	return bm.noQuiet || time.Since(bm.since) >= copyQuiet
}

// refreshCopy starts a background build of the in-memory copy unless one
// runs, the last ended too recently, or the index is closing.
func (bm *BM25) refreshCopy() {
	bm.mu.Lock()
	defer bm.mu.Unlock()
	if bm.building || bm.closed || bm.off || time.Now().Before(bm.next) {
		return
	}
	bm.startBuild()
	go func() {
		defer bm.wg.Done()
		start := time.Now()
		ctx, cancel := bm.ix.closingContext()
		_ = bm.BuildPostings(ctx) // on failure searches keep reading SQLite
		cancel()
		bm.endBuild(time.Since(start))
	}()
}

// startBuild marks a build running (bm.mu held).
func (bm *BM25) startBuild() {
	bm.building = true
	bm.built = make(chan struct{})
	bm.wg.Add(1)
}

// endBuild marks the running build ended after took, and spaces the next.
func (bm *BM25) endBuild(took time.Duration) {
	bm.mu.Lock()
	defer bm.mu.Unlock()
	bm.building = false
	close(bm.built)
	bm.next = time.Now().Add(max(copyMinGap, copyGapFactor*took))
}

// EnsurePostings makes the in-memory BM25 copy current before it returns:
// it waits for a build that runs, and builds one (now, on the caller's
// goroutine) when the copy is still missing or stale. A save of the engine
// state calls it, so that the state carries the copy. It does nothing when
// the copy is off or the index closing.
func (bm *BM25) EnsurePostings(ctx context.Context) error {
	for waited := false; ; waited = true {
		var current bool
		err := bm.ix.reader(ctx, func(c *sqlite3.Conn) (err error) {
			m, err := bm.current(c)
			current = m != nil
			return err
		})
		if err != nil || current {
			return err
		}
		bm.mu.Lock()
		if bm.closed || bm.off {
			bm.mu.Unlock()
			return nil
		}
		if bm.building && !waited {
			built := bm.built
			bm.mu.Unlock()
			select {
			case <-built:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if bm.building { // a second build after the one waited for: leave it to that one
			bm.mu.Unlock()
			return nil
		}
		bm.startBuild()
		bm.mu.Unlock()
		start := time.Now()
		bctx, cancel := bm.ix.closingContext() // a close stops the build
		stop := context.AfterFunc(ctx, cancel)
		err = bm.BuildPostings(bctx)
		stop()
		cancel()
		bm.endBuild(time.Since(start))
		bm.wg.Done()
		return err
	}
}

// BuildPostings builds the in-memory BM25 copy of the index now, on a
// connection of its own, and makes searches use it while the index is
// unchanged. Searches start a build in the background when they find the
// copy missing or stale; callers may call it to have it ready at once.
func (bm *BM25) BuildPostings(ctx context.Context) error {
	c, err := openConn(ctx, bm.ix.path)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Exec(`BEGIN`); err != nil {
		return err
	}
	m, err := buildPostingsCopy(c)
	err = errors.Join(err, c.Exec(`COMMIT`))
	if err != nil {
		return err
	}
	bm.idx.Store(m)
	bm.prev.Store(nil)
	return nil
}

// closingContext is cancelled when the index closes (or cancel is called).
func (ix *Index) closingContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-ix.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// shutdown stops new builds, waits for a running one, and closes the
// tokenizer; Close calls it before closing the connections.
func (bm *BM25) shutdown() error {
	bm.mu.Lock()
	bm.closed = true
	bm.mu.Unlock()
	bm.wg.Wait()
	bm.idx.Store(nil)
	bm.prev.Store(nil)
	if bm.tok != nil {
		return bm.tok.close()
	}
	return nil
}

// copySearch answers a search from the in-memory copy when it matches the
// snapshot c reads and every phrase is one token (single), and says so
// (done); when not, the caller reads SQLite, and a build is started if
// the copy is missing or stale.
func (bm *BM25) copySearch(c *sqlite3.Conn, p BM25Params, phrases [][]string, single bool, limit int, fn func(Hit) bool) (done bool, err error) {
	if bm.off {
		return false, nil
	}
	m, err := bm.current(c)
	if err != nil {
		return false, err
	}
	if m == nil {
		if bm.quietSince(c) {
			bm.refreshCopy()
		}
		return false, nil
	}
	if !single {
		return false, nil
	}
	sc, _ := bm.scratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	toks := sc.tokens[:0]
	for _, ph := range phrases {
		toks = append(toks, ph[0])
	}
	rows := m.score(p, toks, sc)
	bm.used.Add(1)
	m.emit(rows, limit, fn)
	sc.tokens = toks
	bm.scratch.Put(sc) // after emit: rows is the scratch's
	return true, nil
}

// PostingsSearches is how many searches the in-memory BM25 copy has answered
// since the index was opened (the rest were scored from SQLite reads,
// with the same results).
func (bm *BM25) PostingsSearches() int64 { return bm.used.Load() }
