package index

import (
	"sync"

	"github.com/ncruces/go-sqlite3"
)

// stampStmts keeps the stamp query (stampSQL) prepared once per read
// connection: every search from memory first checks that the copy matches
// the snapshot it reads, and compiling the query each time was most of
// that check's cost. A read connection serves one search at a time, so
// its statement does too. A connection's statement must be released
// before the connection is closed (SQLite refuses to close a connection
// with statements open).
type stampStmts struct {
	mu sync.Mutex
	m  map[*sqlite3.Conn]*sqlite3.Stmt
}

// each calls fn with each stamp record c reads, like eachStamp.
func (s *stampStmts) each(c *sqlite3.Conn, fn func(block []byte)) error {
	s.mu.Lock()
	st := s.m[c]
	s.mu.Unlock()
	if st == nil {
		var err error
		if st, _, err = c.Prepare(stampSQL); err != nil {
			return err
		}
		s.mu.Lock()
		if s.m == nil {
			s.m = map[*sqlite3.Conn]*sqlite3.Stmt{}
		}
		s.m[c] = st
		s.mu.Unlock()
	}
	for st.Step() {
		fn(st.ColumnRawBlob(0))
	}
	err := st.Err()
	if rerr := st.Reset(); err == nil && rerr != nil {
		err = rerr
	}
	return err
}

// release closes c's statement, if any; call it before closing c.
func (s *stampStmts) release(c *sqlite3.Conn) error {
	s.mu.Lock()
	st := s.m[c]
	delete(s.m, c)
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	return st.Close()
}
