package tools

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// etagDoc describes the etag every read and write tool returns.
const etagDoc = "Content hash of the note file as read (or as written). Pass it as if_match to a write tool: the write is refused, and nothing is written, if the file changed since."

// ifMatchDoc describes the if_match every write tool takes.
const ifMatchDoc = "The etag a read returned: the write is refused with the current etag, and nothing is written, when the file on disk no longer has it (someone edited the note since). Empty: no check."

// etagOf is the etag of a note file's bytes.
func etagOf(raw []byte) string { return vault.HashBytes(raw) }

// checkIfMatch refuses a write to rel whose if_match no longer names the
// file's content (raw, as just read).
func checkIfMatch(rel string, raw []byte, ifMatch string) error {
	want := strings.TrimSpace(ifMatch)
	if want == "" {
		return nil
	}
	if cur := etagOf(raw); cur != strings.Trim(want, `"`) {
		return fmt.Errorf("%s changed since it was read: its etag is %s now, not %s; nothing was written (read it again, then retry with the new etag)", rel, cur, want)
	}
	return nil
}
