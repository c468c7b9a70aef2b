package pdf

import (
	"bytes"
	"errors"
	"fmt"

	lpdf "github.com/ledongthuc/pdf"
)

// openReader parses the PDF in data and classifies failures as ErrEncrypted
// or ErrCorrupt, wrapping the library's error.
//
// The library tries the empty password on encrypted files: when it works
// (owner-password-only files, which viewers open without asking) the reader
// decrypts transparently. It fails with ErrInvalidPassword when a user
// password is needed and with other messages for unsupported schemes (e.g.
// AES-256, V=5), so a failure is attributed to encryption when either the
// error or an /Encrypt entry in the file says so.
func openReader(data []byte) (*lpdf.Reader, error) {
	if err := checkXref(data); err != nil {
		return nil, err
	}
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err == nil {
		if err := checkDecryption(r); err != nil {
			return nil, err
		}
		return r, nil
	}
	if errors.Is(err, lpdf.ErrInvalidPassword) || hasEncryptEntry(data) {
		return nil, fmt.Errorf("%w: %w", ErrEncrypted, err)
	}
	return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// checkDecryption refuses encrypted files that the library opened but
// would decrypt wrongly. Its per-object RC4 key is the whole 16-byte MD5
// hash, while PDF 32000-1 Algorithm 1 truncates it to n+5 bytes for an
// n-byte file key, so files with RC4 keys shorter than 88 bits (the 40-bit
// keys of revision 2, typically) would yield garbage. 128-bit RC4 and
// AES-128 (V=4) decrypt correctly.
func checkDecryption(r *lpdf.Reader) error {
	enc := safeValue(func() lpdf.Value { return r.Trailer().Key("Encrypt") })
	if enc.IsNull() || enc.Key("V").Int64() == 4 {
		return nil
	}
	bits := enc.Key("Length").Int64()
	if bits == 0 {
		bits = 40
	}
	if bits/8+5 >= 16 {
		return nil
	}
	return fmt.Errorf("%w: %d-bit RC4 encryption is not supported", ErrEncrypted, bits)
}

// hasEncryptEntry reports whether data contains an /Encrypt dictionary key
// (as opposed to, say, /EncryptMetadata). Trailer dictionaries, including
// cross-reference stream dictionaries, are never compressed, so a plain
// byte search finds the entry when one exists.
func hasEncryptEntry(data []byte) bool {
	const key = "/Encrypt"
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(key))
		if j < 0 {
			return false
		}
		end := i + j + len(key)
		if end >= len(data) || isPDFDelimOrSpace(data[end]) {
			return true
		}
		i = end
	}
}

// isPDFDelimOrSpace reports whether c ends a PDF name token.
func isPDFDelimOrSpace(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return isPDFSpace(c)
}
