package index

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// The integrity check on open walks every page of the file: on a large
// vault most of a no-change `index` run. A file whose bytes cannot have
// changed since the last clean close, which left it checked or written
// by this program and its journal empty, needs no second walk. The stamp
// names that file version by what any write changes: device, inode,
// size, modification and status-change times (the last cannot be set
// back by a program). Truncation or overwritten pages change them, so
// they are still found; damage written without touching the file's
// metadata (a failing disk) is then found by the query or sync that
// reads it, which rebuilds the index too.
//
// File times tick coarsely (a few milliseconds), so a write right after
// the stamp could leave every field as stamped. As with a racily clean
// Git index, the stamp counts only when the stamp file itself was written
// in a later tick than the index file's last change: a later write to
// the index file then shows in its times.

// cleanPath is the stamp file of the index file at path.
func cleanPath(path string) string { return path + ".clean" }

// fileStamp identifies one version of a file's bytes.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

func (s fileStamp) String() string {
	return fmt.Sprintf("enquire-mcp clean close v1 %d %d %d %d %d\n", s.dev, s.ino, s.size, s.mtime, s.ctime)
}

// cleanSinceClose reports whether the index file is byte for byte what
// the last clean close stamped: stamped, unchanged since, and no
// journal left to replay into it.
func cleanSinceClose(path string) bool {
	now, ok := statStamp(path)
	if !ok {
		return false
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	b, err := os.ReadFile(cleanPath(path))
	if err != nil || string(b) != now.String() {
		return false
	}
	fi, err := os.Stat(cleanPath(path))
	return err == nil && fi.ModTime().UnixNano() > now.ctime
}

// stampTicks bounds how many file-time ticks stampClean waits for.
const stampTicks = 20

// stampClean records the index file as it is after a clean close; when
// the file is not in a known-good state (sound is false) or cannot be
// stamped, any old stamp is removed so the next open checks the file.
func stampClean(path string, sound bool) {
	s, ok := statStamp(path)
	if !sound || !ok {
		os.Remove(cleanPath(path))
		return
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		// Another process still has the file open: its close stamps it.
		os.Remove(cleanPath(path))
		return
	}
	for range stampTicks {
		if err := os.WriteFile(cleanPath(path), []byte(s.String()), 0o600); err != nil {
			break
		}
		if fi, err := os.Stat(cleanPath(path)); err != nil || fi.ModTime().UnixNano() > s.ctime {
			return
		}
		time.Sleep(2 * time.Millisecond) // the index file changed in this tick
	}
	os.Remove(cleanPath(path))
}
