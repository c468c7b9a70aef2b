package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// precompiledNormalizer is SentencePiece's normalisation table
// ("Precompiled" in tokenizer.json; XLM-R-style models use it for
// NMT-NFKC). The table is a darts-clone double-array trie from UTF-8 byte
// strings to offsets in a blob of NUL-terminated replacements.
//
// It reproduces HuggingFace tokenizers' reading of the table: the text is
// cut into extended grapheme clusters; a cluster shorter than 6 bytes is
// replaced whole by the entry of its shortest prefix found in the trie, if
// any; otherwise each character is looked up on its own.
type precompiledNormalizer struct {
	units      []uint32
	normalized []byte
	// ascii caches the replacement of each single ASCII byte (a single
	// ASCII character is a cluster of its own unless followed by a
	// combining character or, for CR, by LF).
	ascii    [utf8.RuneSelf]string
	asciiSet [utf8.RuneSelf]bool
}

// newPrecompiled decodes the base64 precompiled_charsmap.
func newPrecompiled(b64 string) (*precompiledNormalizer, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("precompiled_charsmap is not base64: %w", err)
	}
	return parsePrecompiled(raw)
}

// parsePrecompiled reads the binary charsmap: a little-endian uint32 trie
// size in bytes, the trie units, then the replacement strings.
func parsePrecompiled(raw []byte) (*precompiledNormalizer, error) {
	if len(raw) < 4 {
		return nil, fmt.Errorf("precompiled_charsmap is %d bytes, too short", len(raw))
	}
	size := binary.LittleEndian.Uint32(raw)
	if size%4 != 0 || uint64(size) > uint64(len(raw)-4) {
		return nil, fmt.Errorf("precompiled_charsmap trie size %d does not fit in %d bytes", size, len(raw)-4)
	}
	p := &precompiledNormalizer{units: make([]uint32, size/4), normalized: raw[4+size:]}
	for i := range p.units {
		p.units[i] = binary.LittleEndian.Uint32(raw[4+4*i:])
	}
	if len(p.units) == 0 {
		return nil, fmt.Errorf("precompiled_charsmap has an empty trie")
	}
	for c := 1; c < utf8.RuneSelf; c++ {
		if s, ok := p.transform([]byte{byte(c)}); ok {
			p.ascii[c], p.asciiSet[c] = string(s), true
		}
	}
	return p, nil
}

// transform returns the replacement for the shortest prefix of key that
// the trie holds, like spm_precompiled's Precompiled::transform. Corrupt
// tables yield no match rather than a panic.
func (p *precompiledNormalizer) transform(key []byte) ([]byte, bool) {
	u := p.units
	pos := uint32(0)
	pos ^= unitOffset(u[0])
	for _, c := range key {
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(u) {
			return nil, false
		}
		unit := u[pos]
		if unit&(1<<31|0xff) != uint32(c) {
			return nil, false
		}
		pos ^= unitOffset(unit)
		if unit>>8&1 == 1 {
			if int(pos) >= len(u) {
				return nil, false
			}
			return p.at(int(u[pos] & (1<<31 - 1)))
		}
	}
	return nil, false
}

// unitOffset decodes the child offset of a double-array unit.
func unitOffset(unit uint32) uint32 {
	return (unit >> 10) << ((unit & (1 << 9)) >> 6)
}

// at returns the NUL-terminated replacement starting at offset i.
func (p *precompiledNormalizer) at(i int) ([]byte, bool) {
	if i < 0 || i > len(p.normalized) {
		return nil, false
	}
	end := i
	for end < len(p.normalized) && p.normalized[end] != 0 {
		end++
	}
	return p.normalized[i:end], true
}

func (p *precompiledNormalizer) normalize(dst, src []byte) []byte {
	state := -1
	for len(src) > 0 {
		c := src[0]
		if c < utf8.RuneSelf && (len(src) == 1 || (src[1] < utf8.RuneSelf && !(c == '\r' && src[1] == '\n'))) {
			if p.asciiSet[c] {
				dst = append(dst, p.ascii[c]...)
			} else {
				dst = append(dst, c)
			}
			src = src[1:]
			state = -1
			continue
		}
		var cluster []byte
		cluster, src, _, state = uniseg.FirstGraphemeCluster(src, state)
		dst = p.normalizeCluster(dst, cluster)
	}
	return dst
}

// normalizeCluster appends the replacement of one grapheme cluster.
func (p *precompiledNormalizer) normalizeCluster(dst, cluster []byte) []byte {
	if len(cluster) < 6 {
		if s, ok := p.transform(cluster); ok {
			return append(dst, s...)
		}
	}
	for i := 0; i < len(cluster); {
		_, size := decodeRune(cluster[i:])
		if s, ok := p.transform(cluster[i : i+size]); ok {
			dst = append(dst, s...)
		} else {
			dst = append(dst, cluster[i:i+size]...)
		}
		i += size
	}
	return dst
}
