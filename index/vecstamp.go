package index

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// The vectors the engine loads from the index are also saved in the
// engine state, so that a warm start need not read them all from SQLite
// again (0.5–0.9 s of CPU at 107,000 notes). A saved copy is used only
// when the index's vectors are as they were when the copy was read: its
// vector stamp records the index's instance id, the FTS5 stamp (the chunks
// and their text), the embedding model and a counter that triggers on
// the vectors table raise with every row written or deleted. Triggers,
// not the code that writes, so that any program writing the table
// (another build of this one included) changes the stamp.

// vectorTriggers keep the meta key vectors_version counting writes to the
// vectors table; the counter starts at 1 when they are created.
const vectorTriggers = `
	CREATE TRIGGER IF NOT EXISTS vectors_version_ins AFTER INSERT ON vectors BEGIN ` + bumpVectorVersion + ` END;
	CREATE TRIGGER IF NOT EXISTS vectors_version_upd AFTER UPDATE ON vectors BEGIN ` + bumpVectorVersion + ` END;
	CREATE TRIGGER IF NOT EXISTS vectors_version_del AFTER DELETE ON vectors BEGIN ` + bumpVectorVersion + ` END;
	INSERT OR IGNORE INTO meta(key, value) VALUES ('vectors_version', '1');`

const bumpVectorVersion = `INSERT OR REPLACE INTO meta(key, value) VALUES ('vectors_version',
	COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors_version'), 0) + 1);`

// loadVectorTriggers creates the triggers of the vector stamp when the
// index has none yet (an index made before them); an index that has them
// is only read. Without them (the write failed) every vector stamp is "":
// no saved copy is used.
func (v *Vectors) loadVectorTriggers() {
	if ok, err := hasVectorTriggers(v.ix.write); err == nil && ok {
		v.stamped = true
		return
	}
	v.stamped = v.ix.tx(func(c *sqlite3.Conn) error { return c.Exec(vectorTriggers) }) == nil
}

// hasVectorTriggers reports whether the index c reads has the three
// triggers and the counter.
func hasVectorTriggers(c *sqlite3.Conn) (bool, error) {
	st, _, err := c.Prepare(`SELECT (SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name IN
		('vectors_version_ins', 'vectors_version_upd', 'vectors_version_del')) = 3
		AND EXISTS (SELECT 1 FROM meta WHERE key = 'vectors_version')`)
	if err != nil {
		return false, err
	}
	defer st.Close()
	ok := st.Step() && st.ColumnBool(0)
	return ok, st.Err()
}

// vectorStamp returns the vector stamp of the snapshot c reads ("" when
// the index keeps none).
func (v *Vectors) vectorStamp(c *sqlite3.Conn) (string, error) {
	instance := v.ix.InstanceID()
	if !v.stamped || instance == "" {
		return "", nil
	}
	version, err := metaValue(c, "vectors_version")
	if err != nil || version == "" {
		return "", err
	}
	fts, err := readStamp(c)
	if err != nil {
		return "", err
	}
	id, alias, dim, err := modelOf(c)
	if err != nil {
		return "", err
	}
	return strings.Join([]string{instance, version, id, alias, fmt.Sprint(dim), fts}, "\x00"), nil
}

// Stamp returns the index's vector stamp now: equal stamps mean the
// same vectors for the same chunks. It is "" when the index keeps none
// (then nothing derived from its vectors may be reused).
func (v *Vectors) Stamp(ctx context.Context) (stamp string, err error) {
	err = v.ix.reader(ctx, func(c *sqlite3.Conn) error {
		return inReadTx(c, func() (err error) {
			stamp, err = v.vectorStamp(c)
			return err
		})
	})
	if err != nil {
		return "", fmt.Errorf("index %s: vector stamp: %w", v.ix.path, err)
	}
	return stamp, nil
}

// inReadTx runs fn inside a read transaction on c, so that everything it
// reads comes from one snapshot of the database.
func inReadTx(c *sqlite3.Conn, fn func() error) error {
	if err := c.Exec(`BEGIN`); err != nil {
		return err
	}
	err := fn()
	return errors.Join(err, c.Exec(`COMMIT`))
}

// modelOf reads the recorded embedding model on c.
func modelOf(c *sqlite3.Conn) (id, alias string, dim int, err error) {
	st, _, err := c.Prepare(`SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_alias', 'embedding_dim')`)
	if err != nil {
		return "", "", 0, err
	}
	defer st.Close()
	for st.Step() {
		switch st.ColumnText(0) {
		case "embedding_model":
			id = st.ColumnText(1)
		case "embedding_alias":
			alias = st.ColumnText(1)
		case "embedding_dim":
			_, err = fmt.Sscan(st.ColumnText(1), &dim)
		}
	}
	return id, alias, dim, errors.Join(err, st.Err())
}
