package index

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// memMinGap is the least time between the end of one in-memory BM25 build
// and the start of the next; memGapFactor makes the gap at least that many
// build durations. Together they bound the background CPU a stream of
// edits can cost (a build of the 13k-note vault takes about a second); in
// between, searches are scored from SQLite reads, with the same results.
// A build also waits until the index has not changed for memQuiet: under
// a stream of edits (a sync every few hundred milliseconds) a copy would
// be stale before it was done, so none is built until the edits pause.
// (The index's own writes do not make the copy stale: it follows them,
// memtrack.go; a build is needed after another process's writes, or when
// the followed changes outgrow the overlay's bound.)
const (
	memMinGap    = 2 * time.Second
	memGapFactor = 3
	memQuiet     = 2 * time.Second
)

// memState holds the in-memory BM25 copy of the index (memIndex), the
// background build that refreshes it when the index changes, and the
// query tokenizer it needs.
type memState struct {
	idx atomic.Pointer[memIndex]
	// prev is the copy before the last live change (memtrack.go), for
	// searches whose snapshot predates that change's commit.
	prev atomic.Pointer[memIndex]

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
	// overlayMin, when not 0, replaces memOverlayMin (tests).
	overlayMin int

	tx     memTx         // the running write transaction's FTS5 changes (under Index.writeMu)
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
func (s *memState) current(c *sqlite3.Conn) (*memIndex, error) {
	m := s.idx.Load()
	if m == nil {
		return nil, nil
	}
	for _, m := range []*memIndex{m, s.prev.Load()} {
		if m == nil {
			continue
		}
		if same, err := s.stampIs(c, m.stamp); err != nil || same {
			if err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	return nil, nil
}

// stampIs reports whether the snapshot c reads has the given FTS5 stamp.
func (s *memState) stampIs(c *sqlite3.Conn, stamp string) (bool, error) {
	return sameStamp(func(fn func([]byte)) error { return s.stmts.each(c, fn) }, stamp)
}

// tokenizer returns the query tokenizer, opening it on first use.
func (ix *Index) tokenizer() (*queryTokenizer, error) {
	s := &ix.mem
	s.tokOnce.Do(func() { s.tok, s.tokErr = newQueryTokenizer(context.Background(), ix.settings.Tokenizer) })
	return s.tok, s.tokErr
}

// quietSince reports whether the snapshot c reads has been the one
// searches saw for memQuiet, i.e. the index has not changed for that long.
func (ix *Index) quietSince(c *sqlite3.Conn) bool {
	stamp, err := readStamp(c)
	if err != nil {
		return false
	}
	s := &ix.mem
	s.mu.Lock()
	defer s.mu.Unlock()
	if stamp != s.seen {
		s.seen, s.since = stamp, time.Now()
	}
	return s.noQuiet || time.Since(s.since) >= memQuiet
}

// refreshMem starts a background build of the in-memory copy unless one
// runs, the last ended too recently, or the index is closing.
func (ix *Index) refreshMem() {
	s := &ix.mem
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building || s.closed || s.off || time.Now().Before(s.next) {
		return
	}
	s.startBuild()
	go func() {
		defer s.wg.Done()
		start := time.Now()
		ctx, cancel := ix.closingContext()
		_ = ix.BuildMem(ctx) // on failure searches keep reading SQLite
		cancel()
		s.endBuild(time.Since(start))
	}()
}

// startBuild marks a build running (s.mu held).
func (s *memState) startBuild() {
	s.building = true
	s.built = make(chan struct{})
	s.wg.Add(1)
}

// endBuild marks the running build ended after took, and spaces the next.
func (s *memState) endBuild(took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.building = false
	close(s.built)
	s.next = time.Now().Add(max(memMinGap, memGapFactor*took))
}

// EnsureMem makes the in-memory BM25 copy current before it returns:
// it waits for a build that runs, and builds one (now, on the caller's
// goroutine) when the copy is still missing or stale. A save of the engine
// state calls it, so that the state carries the copy. It does nothing when
// the copy is off or the index closing.
func (ix *Index) EnsureMem(ctx context.Context) error {
	s := &ix.mem
	for waited := false; ; waited = true {
		var current bool
		err := ix.reader(ctx, func(c *sqlite3.Conn) (err error) {
			m, err := s.current(c)
			current = m != nil
			return err
		})
		if err != nil || current {
			return err
		}
		s.mu.Lock()
		if s.closed || s.off {
			s.mu.Unlock()
			return nil
		}
		if s.building && !waited {
			built := s.built
			s.mu.Unlock()
			select {
			case <-built:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if s.building { // a second build after the one waited for: leave it to that one
			s.mu.Unlock()
			return nil
		}
		s.startBuild()
		s.mu.Unlock()
		start := time.Now()
		bctx, cancel := ix.closingContext() // a close stops the build
		stop := context.AfterFunc(ctx, cancel)
		err = ix.BuildMem(bctx)
		stop()
		cancel()
		s.endBuild(time.Since(start))
		s.wg.Done()
		return err
	}
}

// BuildMem builds the in-memory BM25 copy of the index now, on a
// connection of its own, and makes searches use it while the index is
// unchanged. Searches start a build in the background when they find the
// copy missing or stale; callers may call it to have it ready at once.
func (ix *Index) BuildMem(ctx context.Context) error {
	c, err := openConn(ctx, ix.path)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Exec(`BEGIN`); err != nil {
		return err
	}
	m, err := buildMem(c)
	err = errors.Join(err, c.Exec(`COMMIT`))
	if err != nil {
		return err
	}
	ix.mem.idx.Store(m)
	ix.mem.prev.Store(nil)
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
func (s *memState) shutdown() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
	s.idx.Store(nil)
	s.prev.Store(nil)
	if s.tok != nil {
		return s.tok.close()
	}
	return nil
}

// memSearch answers a search from the in-memory copy when it matches the
// snapshot c reads and every phrase is one token (single), and says so
// (done); when not, the caller reads SQLite, and a build is started if
// the copy is missing or stale.
func (ix *Index) memSearch(c *sqlite3.Conn, p BM25Params, phrases [][]string, single bool, limit int, fn func(Hit) bool) (done bool, err error) {
	if ix.mem.off {
		return false, nil
	}
	m, err := ix.mem.current(c)
	if err != nil {
		return false, err
	}
	if m == nil {
		if ix.quietSince(c) {
			ix.refreshMem()
		}
		return false, nil
	}
	if !single {
		return false, nil
	}
	sc, _ := ix.mem.scratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	toks := sc.tokens[:0]
	for _, ph := range phrases {
		toks = append(toks, ph[0])
	}
	rows := m.score(p, toks, sc)
	ix.mem.used.Add(1)
	m.emit(rows, limit, fn)
	sc.tokens = toks
	ix.mem.scratch.Put(sc) // after emit: rows is the scratch's
	return true, nil
}

// MemSearches is how many searches the in-memory BM25 copy has answered
// since the index was opened (the rest were scored from SQLite reads,
// with the same results).
func (ix *Index) MemSearches() int64 { return ix.mem.used.Load() }
