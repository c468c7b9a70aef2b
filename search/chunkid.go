package search

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// A chunk id is "<path>#<index>@<hash>": the note's vault-relative path,
// the chunk's 0-based index in the note and the first 8 hex digits of the
// SHA-256 of the chunk's text. Chunking is deterministic and per note, so
// an id survives restarts and edits of other notes. When the note itself
// is edited, the hash tells whether the id still names the same text: a
// chunk whose text is unchanged but moved (a passage inserted above it) is
// found again by its hash; an id whose text is gone is stale.
const chunkHashLen = 8

// ChunkID returns the id of chunk c of note n.
func ChunkID(n *vault.Note, c chunk.Chunk) string {
	return n.Path + "#" + strconv.Itoa(c.Index) + "@" + chunkHash(c.Text(n))
}

func chunkHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])[:chunkHashLen]
}

// parsedChunkID is a chunk id taken apart.
type parsedChunkID struct {
	path  string
	index int
	hash  string
}

// parseChunkID splits an id at its last '#' (a path may hold '#').
func parseChunkID(id string) (parsedChunkID, error) {
	cut := strings.LastIndexByte(id, '#')
	if cut <= 0 {
		return parsedChunkID{}, invalid("chunk_id %s is not of the form <path>#<index>@<hash> (take it from a search passage)", quoted(id))
	}
	idx, hash, ok := strings.Cut(id[cut+1:], "@")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 0 || len(hash) != chunkHashLen {
		return parsedChunkID{}, invalid("chunk_id %s is not of the form <path>#<index>@<hash> (take it from a search passage)", quoted(id))
	}
	return parsedChunkID{path: id[:cut], index: n, hash: strings.ToLower(hash)}, nil
}

// resolveChunk finds the note and chunk an id names: the chunk at its
// index when the text hash agrees, else the note's chunk with that hash
// (the text moved). Errors wrap ErrInvalid and name the note.
func (e *Engine) resolveChunk(id string) (note, index int, err error) {
	p, err := parseChunkID(id)
	if err != nil {
		return 0, 0, err
	}
	note, ok := e.snap.NoteIDExact(p.path)
	if !ok {
		return 0, 0, invalid("chunk_id %s names a note that is not in the vault (renamed or deleted?); search again", quoted(id))
	}
	n, chunks := e.readable(e.snap.Notes[note]), e.chunks[note]
	if p.index < len(chunks) && chunkHash(chunks[p.index].Text(n)) == p.hash {
		return note, p.index, nil
	}
	for i, c := range chunks {
		if chunkHash(c.Text(n)) == p.hash {
			return note, i, nil
		}
	}
	return 0, 0, invalid("chunk_id %s is stale: note %s was edited and no longer has that passage (it has %d chunks); search again",
		quoted(id), quoted(p.path), len(chunks))
}
