package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// An index's generation is a random id kept in its meta table, written
// when the schema is created (a new index, a rebuild, a reset after
// damage). Anything derived from the index and kept elsewhere (the
// in-memory BM25 copy saved in the engine state) records it, and is used
// only with the index of the same generation: the FTS5 stamp alone may
// repeat in another database built from the same files.

// newGeneration writes a new generation into the meta table (inside the
// caller's write transaction).
func newGeneration(c *sqlite3.Conn) error {
	st, _, err := c.Prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('generation', ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	return errors.Join(st.BindText(1, hex.EncodeToString(randomID())), st.Exec())
}

// randomID returns 16 random bytes (crypto/rand does not fail on the
// systems Go supports).
func randomID() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// loadGeneration reads the index's generation into ix.gen, writing one
// first into an index made before generations existed. Without one (the
// write failed) ix.gen stays empty: nothing derived is saved or used.
func (ix *Index) loadGeneration() {
	gen, err := readGeneration(ix.write)
	if err == nil && gen == "" {
		if err = ix.tx(newGeneration); err == nil {
			gen, err = readGeneration(ix.write)
		}
	}
	if err == nil {
		ix.gen.Store(gen)
	}
}

// readGeneration returns the generation of the index c reads, "" when it
// has none.
func readGeneration(c *sqlite3.Conn) (string, error) { return metaValue(c, "generation") }

// metaValue returns the value of key in the meta table c reads, "" when
// it has none.
func metaValue(c *sqlite3.Conn, key string) (string, error) {
	st, _, err := c.Prepare(`SELECT value FROM meta WHERE key = ?`)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := bindAll(st, key); err != nil {
		return "", err
	}
	v := ""
	if st.Step() {
		v = st.ColumnText(0)
	}
	return v, st.Err()
}

// readMeta is metaValue on a read connection.
func (ix *Index) readMeta(ctx context.Context, key string) (v string, err error) {
	err = ix.reader(ctx, func(c *sqlite3.Conn) error {
		v, err = metaValue(c, key)
		return err
	})
	return v, err
}

// Generation is the index's generation: a random id that changes when
// the index is created or rebuilt.
func (ix *Index) Generation() string {
	gen, _ := ix.gen.Load().(string)
	return gen
}
