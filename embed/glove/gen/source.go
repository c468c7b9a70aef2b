package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// dims is the dimension of the source vectors; each JSON vector has two
// more numbers, its L2 norm and the word's index in the frequency-ordered
// word list.
const dims = 100

// word is one entry of the source.
type word struct {
	text string
	rank int // 0-based index in GloVe's frequency order as shipped
	vec  []float32
}

// readSource reads the tarball from r, checking that its SHA-256 is
// wantHex, and returns every word that passes keepWord, in rank order.
// The JSON (300 MB) is decoded as a stream, one vector at a time.
func readSource(r io.Reader, wantHex string) ([]word, error) {
	h := sha256.New()
	tee := io.TeeReader(r, h)
	words, parseErr := parseTarball(tee)
	// Hash the rest, so that a wrong input is reported as such even when
	// it also fails to parse.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != wantHex {
		return nil, fmt.Errorf("sha256 %s, want %s", got, wantHex)
	}
	return words, parseErr
}

func parseTarball(r io.Reader) ([]word, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("no %s in the tarball", sourceMember)
		}
		if err != nil {
			return nil, fmt.Errorf("untar: %w", err)
		}
		if hdr.Name == sourceMember {
			words, err := parseJSON(tr)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sourceMember, err)
			}
			return words, nil
		}
	}
}

// parseJSON walks the top-level object. Only "words" (checked against the
// vectors' ranks), "dimensions" and "vectors" matter.
func parseJSON(r io.Reader) ([]word, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var (
		order []string
		words []word
		dim   = -1
		seen  bool
	)
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		switch key {
		case "words":
			err = dec.Decode(&order)
		case "dimensions":
			err = dec.Decode(&dim)
		case "vectors":
			words, err = parseVectors(dec)
			seen = true
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if dim != dims || !seen {
		return nil, fmt.Errorf("want %d dimensions and a vectors object, got %d dimensions (vectors: %v)", dims, dim, seen)
	}
	for _, w := range words {
		if w.rank >= len(order) || order[w.rank] != w.text {
			return nil, fmt.Errorf("word %q has rank %d, not its place in the words list", w.text, w.rank)
		}
	}
	sortByRank(words)
	return words, nil
}

// parseVectors decodes the "vectors" object, keeping the words keepWord
// accepts.
func parseVectors(dec *json.Decoder) ([]word, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var words []word
	var buf []float32
	for dec.More() {
		text, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		if err := dec.Decode(&buf); err != nil {
			return nil, fmt.Errorf("vector of %q: %w", text, err)
		}
		if len(buf) != dims+2 {
			return nil, fmt.Errorf("vector of %q has %d numbers, want %d", text, len(buf), dims+2)
		}
		rank := int(buf[dims+1])
		if float32(rank) != buf[dims+1] || rank < 0 {
			return nil, fmt.Errorf("vector of %q has word index %v", text, buf[dims+1])
		}
		if keepWord(text) {
			words = append(words, word{text: text, rank: rank, vec: append([]float32(nil), buf[:dims]...)})
		}
	}
	return words, expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %v", tok, want)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("got %v, want a key", tok)
	}
	return s, nil
}
