package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ncruces/go-sqlite3"
)

// Embedding vectors live next to the chunks, keyed by the chunk's content
// hash (ChunkHash) rather than its row id: an edit that leaves a passage
// unchanged keeps its vector, and a vector is computed once for identical
// passages. The model that made them is recorded in meta; vectors of two
// models never mix.

// Vectors are the index's chunk embeddings (Index.Vectors): the model
// they are made with (Model, ModelAlias, SetModel), building them
// (Build, EmbedTexts), writing and pruning them (Put, Prune, Clear,
// Missing), reading them (Each, EachStamped, EachOf) and their stamp
// (Stamp), which says whether a copy saved elsewhere is current.
type Vectors struct {
	ix *Index // the store the vectors live in
	// stamped: the vector stamp's triggers exist (vecstamp.go).
	stamped bool
}

// Model returns the recorded model id and dimension ("" and 0
// when no embeddings were built).
func (v *Vectors) Model(ctx context.Context) (id string, dim int, err error) {
	id, _, dim, err = v.ModelAlias(ctx)
	return id, dim, err
}

// ModelAlias also returns the alias the model was chosen by.
func (v *Vectors) ModelAlias(ctx context.Context) (id, alias string, dim int, err error) {
	err = v.ix.reader(ctx, func(c *sqlite3.Conn) (err error) {
		id, alias, dim, err = modelOf(c)
		return err
	})
	if err != nil {
		return "", "", 0, fmt.Errorf("index %s: embedding model: %w", v.ix.path, err)
	}
	return id, alias, dim, nil
}

// SetModel records the model the vectors are made with. When a
// different model was recorded, every stored vector is deleted first and
// the number deleted is returned.
func (v *Vectors) SetModel(ctx context.Context, id, alias string, dim int) (deleted int, err error) {
	old, _, err := v.Model(ctx)
	if err != nil {
		return 0, err
	}
	err = v.ix.tx(func(c *sqlite3.Conn) error {
		if old != id {
			if err := c.Exec(`DELETE FROM vectors`); err != nil {
				return err
			}
			deleted = int(c.Changes())
		}
		return errors.Join(
			exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES ('embedding_model', ?)`, id),
			exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES ('embedding_dim', ?)`, fmt.Sprint(dim)),
			exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES ('embedding_alias', ?)`, alias),
		)
	})
	if err != nil {
		return 0, fmt.Errorf("index %s: set embedding model: %w", v.ix.path, err)
	}
	return deleted, nil
}

// ChunkRef names a chunk.
type ChunkRef struct {
	Path  string
	Chunk int
	Hash  string
}

// Missing lists the chunks whose content has no vector yet,
// by path and chunk index.
func (v *Vectors) Missing(ctx context.Context) ([]ChunkRef, error) {
	var out []ChunkRef
	err := v.ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT c.path, c.idx, c.hash FROM chunks c
			WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash) ORDER BY c.path, c.idx`)
		if err != nil {
			return err
		}
		defer st.Close()
		for st.Step() {
			out = append(out, ChunkRef{Path: st.ColumnText(0), Chunk: st.ColumnInt(1), Hash: st.ColumnText(2)})
		}
		return st.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: chunks without vectors: %w", v.ix.path, err)
	}
	return out, nil
}

// Put stores vectors by chunk hash in one transaction (a killed
// build loses at most the batch in flight).
func (v *Vectors) Put(ctx context.Context, hashes []string, vecs [][]float32) error {
	if len(hashes) != len(vecs) {
		return fmt.Errorf("index: %d hashes for %d vectors", len(hashes), len(vecs))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := v.ix.tx(func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`INSERT OR REPLACE INTO vectors(hash, vec) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		buf := make([]byte, 0, 4+len(firstOr(vecs)))
		for i, v := range vecs {
			buf = EncodeVector(buf[:0], v)
			if err := errors.Join(st.BindText(1, hashes[i]), st.BindBlob(2, buf), st.Exec()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index %s: store vectors: %w", v.ix.path, err)
	}
	return nil
}

func firstOr(v [][]float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return v[0]
}

// Prune deletes the vectors no chunk uses any more.
func (v *Vectors) Prune(ctx context.Context) (int, error) {
	n := 0
	err := v.ix.tx(func(c *sqlite3.Conn) error {
		if err := c.Exec(`DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)`); err != nil {
			return err
		}
		n = int(c.Changes())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("index %s: prune vectors: %w", v.ix.path, err)
	}
	return n, nil
}

// Each calls fn for every chunk that has a vector, with the vector
// in its stored form (see DecodeVector); vec is only valid during the call.
func (v *Vectors) Each(ctx context.Context, fn func(ref ChunkRef, scale float32, vec []int8) error) error {
	_, err := v.EachStamped(ctx, fn)
	return err
}

// EachStamped is Each, also returning the index's vector
// stamp (see [Vectors.Stamp]) read in the same transaction as the
// vectors: the stamp of exactly the vectors fn saw.
func (v *Vectors) EachStamped(ctx context.Context, fn func(ref ChunkRef, scale float32, vec []int8) error) (stamp string, err error) {
	err = v.ix.reader(ctx, func(c *sqlite3.Conn) error {
		return inReadTx(c, func() (err error) {
			if stamp, err = v.vectorStamp(c); err != nil {
				return err
			}
			return eachVector(c, fn)
		})
	})
	if err != nil {
		return "", fmt.Errorf("index %s: read vectors: %w", v.ix.path, err)
	}
	return stamp, nil
}

// eachVector is Each's scan on c.
func eachVector(c *sqlite3.Conn, fn func(ref ChunkRef, scale float32, vec []int8) error) error {
	st, _, err := c.Prepare(`SELECT c.path, c.idx, c.hash, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash ORDER BY c.path, c.idx`)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Step() {
		scale, vec, err := DecodeVector(st.ColumnRawBlob(3))
		if err != nil {
			return err
		}
		if err := fn(ChunkRef{Path: st.ColumnText(0), Chunk: st.ColumnInt(1), Hash: st.ColumnText(2)}, scale, vec); err != nil {
			return err
		}
	}
	return st.Err()
}

// EncodeVector appends v quantized to int8 with one scale: 4 bytes of
// little-endian float32 scale, then one byte per dimension. Cosine
// rankings survive this (the error per dimension is under 0.4 % of the
// largest component) at a quarter of the size.
func EncodeVector(dst []byte, v []float32) []byte {
	var maxAbs float32
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	scale := maxAbs / 127
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(scale))
	for _, x := range v {
		q := float32(0)
		if scale > 0 {
			q = x / scale
		}
		dst = append(dst, byte(int8(math.Round(float64(q)))))
	}
	return dst
}

// DecodeVector splits a stored vector into its scale and a copy of its
// int8 components: component i is scale * vec[i].
func DecodeVector(b []byte) (float32, []int8, error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("stored vector of %d bytes", len(b))
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
	vec := make([]int8, len(b)-4)
	for i, c := range b[4:] {
		vec[i] = int8(c)
	}
	return scale, vec, nil
}

// exec1 runs one statement with arguments.
func exec1(c *sqlite3.Conn, sql string, args ...any) error {
	st, _, err := c.Prepare(sql)
	if err != nil {
		return err
	}
	defer st.Close()
	return bindExec(st, args...)
}
