package index

import (
	"sync"

	"github.com/ncruces/go-sqlite3"
)

// connStmts keeps statements prepared once per read connection: every
// search from memory first checks that the copy matches the snapshot it
// reads (stampSQL), and a search scored from SQLite reads a few small
// things (bm25read.go); compiling the queries each time was most of their
// cost. A read connection serves one search at a time, so its statements
// do too. A connection's statements must be released before the
// connection is closed (SQLite refuses to close a connection with
// statements open).
type connStmts struct {
	mu    sync.Mutex
	m     map[*sqlite3.Conn]map[string]*sqlite3.Stmt
	setUp map[*sqlite3.Conn]bool
}

// setup runs sql (vocabSetup) once on c. It must run outside a
// transaction: the temp table it makes would go with a rollback.
func (s *connStmts) setup(c *sqlite3.Conn, sql string) error {
	s.mu.Lock()
	done := s.setUp[c]
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := c.Exec(sql); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.setUp == nil {
		s.setUp = map[*sqlite3.Conn]bool{}
	}
	s.setUp[c] = true
	return nil
}

// get returns c's statement for sql, preparing it on first use.
func (s *connStmts) get(c *sqlite3.Conn, sql string) (*sqlite3.Stmt, error) {
	s.mu.Lock()
	st := s.m[c][sql]
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, _, err := c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[*sqlite3.Conn]map[string]*sqlite3.Stmt{}
	}
	if s.m[c] == nil {
		s.m[c] = map[string]*sqlite3.Stmt{}
	}
	s.m[c][sql] = st
	return st, nil
}

// each calls fn with each stamp record c reads, like eachStamp.
func (s *connStmts) each(c *sqlite3.Conn, fn func(block []byte)) error {
	st, err := s.get(c, stampSQL)
	if err != nil {
		return err
	}
	for st.Step() {
		fn(st.ColumnRawBlob(0))
	}
	err = st.Err()
	if rerr := st.Reset(); err == nil && rerr != nil {
		err = rerr
	}
	return err
}

// release closes c's statements, if any; call it before closing c.
func (s *connStmts) release(c *sqlite3.Conn) error {
	s.mu.Lock()
	sts := s.m[c]
	delete(s.m, c)
	delete(s.setUp, c)
	s.mu.Unlock()
	var err error
	for _, st := range sts {
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
