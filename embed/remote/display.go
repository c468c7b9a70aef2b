package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
)

// displayURL formats u for messages: the password is masked
// ((*url.URL).Redacted), a user name given without password is masked too
// (it is often a token), and the query and fragment, which may carry
// secrets such as "?key=", are left out.
func displayURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery = "", false
	c.Fragment, c.RawFragment = "", ""
	if c.User != nil {
		if _, hasPassword := c.User.Password(); !hasPassword {
			c.User = url.User("xxxxx")
		}
	}
	return c.Redacted()
}

// displayBaseURL is displayURL for a Config.BaseURL as given, which may be
// an Ollama host form without a scheme or not parse at all: the query and
// fragment are cut and any user information is masked by hand.
func displayBaseURL(s string) string {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && strings.Contains(s, "://") {
		return displayURL(u)
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + len("://")
	}
	end := len(s)
	if i := strings.IndexByte(s[start:], '/'); i >= 0 {
		end = start + i
	}
	if i := strings.LastIndexByte(s[start:end], '@'); i >= 0 {
		s = s[:start] + "xxxxx" + s[start+i:]
	}
	return s
}

// variant is the ID suffix that tells apart vectors of one model embedded
// with other settings than its defaults: "" when the prefixes are the
// model's known ones (none for an unknown model) and MaxChars is
// DefaultMaxChars, else "@" and 8 hex digits of a SHA-256 over the
// prefixes and MaxChars. cfg has its defaults applied.
func variant(cfg Config, p Prefixes) string {
	known, _ := KnownPrefixes(cfg.Model)
	maxChars := max(cfg.MaxChars, -1) // every negative value means no limit
	if p == known && maxChars == DefaultMaxChars {
		return ""
	}
	h := sha256.New()
	for _, s := range []string{p.Query, p.Document, strconv.Itoa(maxChars)} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s + ";"))
	}
	return "@" + hex.EncodeToString(h.Sum(nil))[:8]
}
