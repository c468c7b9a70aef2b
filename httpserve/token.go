package httpserve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// MinTokenBits is the least estimated entropy a token must carry.
const MinTokenBits = 256

// GenerateToken returns a fresh token: 32 random bytes, base64url.
func GenerateToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// CheckToken refuses a token too weak to guard the vault: its estimated
// entropy (length × log2 of the alphabet its character classes span)
// must reach MinTokenBits and it must not be mostly one repeated
// character. A random 32-byte token in base64url or hex passes.
func CheckToken(tok string) error {
	if tok == "" {
		return errors.New("token is empty")
	}
	var lower, upper, digit, other bool
	distinct := map[rune]bool{}
	for _, r := range tok {
		distinct[r] = true
		switch {
		case r > unicode.MaxASCII || unicode.IsSpace(r) || unicode.IsControl(r):
			return errors.New("token must be printable ASCII without spaces")
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		default:
			other = true
		}
	}
	alphabet := 0
	for _, c := range []struct {
		on   bool
		size int
	}{{lower, 26}, {upper, 26}, {digit, 10}, {other, 32}} {
		if c.on {
			alphabet += c.size
		}
	}
	bits := float64(len(tok)) * math.Log2(float64(alphabet))
	if bits < MinTokenBits || len(distinct) < 16 {
		return fmt.Errorf("token too weak (about %.0f bits, %d distinct characters; need %d bits): use `enquire-mcp gen-token`", bits, len(distinct), MinTokenBits)
	}
	return nil
}

// tokenVerifier accepts exactly want. Both sides are hashed first so the
// constant-time compare also hides the token's length.
func tokenVerifier(want string) auth.TokenVerifier {
	sum := sha256.Sum256([]byte(want))
	id := clientID(want)
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		g := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(g[:], sum[:]) != 1 {
			return nil, fmt.Errorf("%w: bearer token not accepted", auth.ErrInvalidToken)
		}
		// UserID binds stateful sessions to this token (the SDK checks it).
		return &auth.TokenInfo{UserID: id}, nil
	}
}

// clientID names a token in logs and rate-limit keys without revealing it.
func clientID(tok string) string {
	s := sha256.Sum256([]byte("enquire-mcp client id\x00" + tok))
	return "tok:" + hex.EncodeToString(s[:4])
}

// bearer extracts the token of an Authorization header ("" if none).
func bearer(r *http.Request) string {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) == 2 && strings.EqualFold(f[0], "bearer") {
		return f[1]
	}
	return ""
}
