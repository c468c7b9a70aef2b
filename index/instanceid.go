package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// An index's instance id is a random id kept in its meta table (under the
// key "generation"), written when the schema is created (a new index, a
// rebuild, a reset after damage). Anything derived from the index and kept elsewhere (the
// in-memory BM25 copy saved in the engine state) records it, and is used
// only with the index of the same instance id: the FTS5 stamp alone may
// repeat in another database built from the same files.

// newInstanceID writes a new instance id into the meta table (inside the
// caller's write transaction).
func newInstanceID(c *sqlite3.Conn) error {
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

// loadInstanceID reads the index's instance id into ix.instanceID,
// writing one first into an index made before instance ids existed. Without one (the
// write failed) ix.instanceID stays empty: nothing derived is saved or used.
func (ix *Index) loadInstanceID() {
	id, err := readInstanceID(ix.write)
	if err == nil && id == "" {
		if err = ix.tx(newInstanceID); err == nil {
			id, err = readInstanceID(ix.write)
		}
	}
	if err == nil {
		ix.instanceID.Store(id)
	}
}

// readInstanceID returns the instance id of the index c reads, "" when it
// has none.
func readInstanceID(c *sqlite3.Conn) (string, error) { return metaValue(c, "generation") }

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

// InstanceID is the index's instance id: a random id that changes when
// the index is created or rebuilt (not the engine's update counter,
// search.Engine.Generation).
func (ix *Index) InstanceID() string {
	id, _ := ix.instanceID.Load().(string)
	return id
}
