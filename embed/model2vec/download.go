package model2vec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Download errors callers may want to tell apart.
var (
	// ErrNotFound: the server has no such file (HTTP 404) — a wrong alias
	// table entry, revision or base URL.
	ErrNotFound = errors.New("file not found on server")
	// ErrDiskFull: the disk filled up; the partial file was deleted.
	ErrDiskFull = errors.New("disk full")
)

// errStalled cancels a transfer that stopped delivering bytes.
var errStalled = errors.New("no data received within the stall timeout")

// userAgent identifies the installer to the server.
const userAgent = "enquire-mcp-model2vec/1"

// transientError marks a failure worth retrying (and resuming).
type transientError struct{ err error }

// Error returns the wrapped error's message.
func (e transientError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e transientError) Unwrap() error { return e.err }

// download fetches one file into dest through dest+".part".
type download struct {
	url, dest, pinned string
	opts              InstallOptions
	progress          Progress
}

// run downloads with retries, resuming the partial file each time.
func (d *download) run(ctx context.Context) (manifestFile, error) {
	for attempt := 0; ; attempt++ {
		res, err := d.attempt(ctx)
		if err == nil {
			return res, nil
		}
		var t transientError
		if !errors.As(err, &t) || attempt >= d.opts.Retries || ctx.Err() != nil {
			if ctx.Err() != nil {
				return manifestFile{}, fmt.Errorf("download %s: %w (partial file kept; run again to resume)", d.url, ctx.Err())
			}
			return manifestFile{}, err
		}
		wait := min(250*time.Millisecond<<attempt, 5*time.Second)
		select {
		case <-ctx.Done():
			return manifestFile{}, fmt.Errorf("download %s: %w (partial file kept; run again to resume)", d.url, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// resumeState returns the size of the partial file and a hash primed with
// its content.
func resumeState(ctx context.Context, part string) (int64, hash.Hash, error) {
	h := sha256.New()
	f, err := os.Open(part)
	if errors.Is(err, os.ErrNotExist) {
		return 0, h, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("open partial file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, fmt.Errorf("stat partial file: %w", err)
	}
	n, err := io.CopyN(h, ctxReader{ctx, f}, st.Size())
	if err != nil {
		return 0, nil, fmt.Errorf("read partial file: %w", err)
	}
	return n, h, nil
}

// attempt makes one request, appending to the partial file from where it
// ends, and installs the file when it is complete and checks out.
func (d *download) attempt(ctx context.Context) (manifestFile, error) {
	part := d.dest + ".part"
	offset, h, err := resumeState(ctx, part)
	if err != nil {
		return manifestFile{}, err
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(d.opts.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()

	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, d.url, nil)
	if err != nil {
		return manifestFile{}, fmt.Errorf("download %s: %w", d.url, err)
	}
	req.Header.Set("User-Agent", userAgent)
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	// Hugging Face answers LFS files with a redirect whose X-Linked-Etag is
	// the SHA-256 of the content; catch it on the way.
	announced := ""
	client := *d.opts.Client
	next := client.CheckRedirect
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if r.Response != nil {
			if s := linkedSHA256(r.Response.Header); s != "" {
				announced = s
			}
		}
		if next != nil {
			return next(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return manifestFile{}, d.transferError(ctx, reqCtx, err)
	}
	defer resp.Body.Close()
	if s := linkedSHA256(resp.Header); s != "" {
		announced = s
	}

	total := int64(-1)
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
		offset = 0 // a full answer: start over even if we asked to resume
		h.Reset()
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
	case code == http.StatusPartialContent:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset {
			os.Remove(part)
			return manifestFile{}, transientError{fmt.Errorf("download %s: unexpected Content-Range %q for offset %d; starting over", d.url, resp.Header.Get("Content-Range"), offset)}
		}
		total = size
	case code == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part)
		return manifestFile{}, transientError{fmt.Errorf("download %s: server cannot resume at byte %d; starting over", d.url, offset)}
	case code == http.StatusNotFound:
		return manifestFile{}, fmt.Errorf("download %s: %w (HTTP 404)", d.url, ErrNotFound)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return manifestFile{}, fmt.Errorf("download %s: access denied (HTTP %d); the repository may be private or gated", d.url, code)
	case code == http.StatusTooManyRequests || code >= 500:
		return manifestFile{}, transientError{fmt.Errorf("download %s: server error %s", d.url, resp.Status)}
	default:
		return manifestFile{}, fmt.Errorf("download %s: unexpected HTTP status %s", d.url, resp.Status)
	}

	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if offset == 0 {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return manifestFile{}, fmt.Errorf("download %s: %w", d.url, err)
	}
	done, err := d.copy(f, h, stallReader{resp.Body, stall, d.opts.StallTimeout}, offset, total)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			os.Remove(part)
			return manifestFile{}, fmt.Errorf("download %s: writing %s: %w (partial file deleted)", d.url, part, ErrDiskFull)
		}
		var werr writeError
		if errors.As(err, &werr) {
			return manifestFile{}, fmt.Errorf("download %s: writing %s: %w", d.url, part, werr.err)
		}
		return manifestFile{}, d.transferError(ctx, reqCtx, err)
	}
	if total >= 0 && done != total {
		return manifestFile{}, transientError{fmt.Errorf("download %s: got %d of %d bytes", d.url, done, total)}
	}

	sum := hex.EncodeToString(h.Sum(nil))
	expected, how := d.pinned, verifiedPinned
	if expected == "" {
		expected, how = announced, verifiedServer
	}
	if expected == "" {
		how = verifiedRecorded
	} else if !strings.EqualFold(sum, expected) {
		os.Remove(part)
		return manifestFile{}, fmt.Errorf("download %s: sha256 %s, expected %s: %w (partial file deleted)", d.url, sum, expected, ErrChecksum)
	}
	if err := os.Rename(part, d.dest); err != nil {
		return manifestFile{}, fmt.Errorf("download %s: %w", d.url, err)
	}
	syncDir(filepath.Dir(d.dest))
	return manifestFile{Name: filepath.Base(d.dest), Size: done, SHA256: sum, Verified: how}, nil
}

// writeError marks a failure writing the partial file (not retried).
type writeError struct{ err error }

// Error returns the wrapped error's message.
func (e writeError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e writeError) Unwrap() error { return e.err }

// copy appends the body to f and h, reporting progress, and returns the
// size of the partial file.
func (d *download) copy(f *os.File, h hash.Hash, body io.Reader, offset, total int64) (int64, error) {
	buf := make([]byte, 256<<10)
	done, reported := offset, int64(-1)
	p := d.progress
	p.Total = total
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				return done, writeError{err}
			}
			h.Write(buf[:n])
			done += int64(n)
			if done-reported >= 256<<10 {
				p.Done, reported = done, done
				report(d.opts, p)
			}
		}
		if rerr == io.EOF {
			if reported != done {
				p.Done = done
				report(d.opts, p)
			}
			return done, nil
		}
		if rerr != nil {
			return done, rerr
		}
	}
}

// transferError classifies a failed request or body read.
func (d *download) transferError(ctx, reqCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("download %s: %w", d.url, ctx.Err())
	}
	if errors.Is(context.Cause(reqCtx), errStalled) {
		return transientError{fmt.Errorf("download %s: %w (%s)", d.url, errStalled, d.opts.StallTimeout)}
	}
	return transientError{fmt.Errorf("download %s: %w", d.url, err)}
}

// stallReader re-arms the stall timer before every read.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

// Read re-arms the timer, then reads.
func (s stallReader) Read(p []byte) (int, error) {
	s.timer.Reset(s.d)
	return s.r.Read(p)
}

// linkedSHA256 returns the SHA-256 in an X-Linked-Etag header, if any.
func linkedSHA256(h http.Header) string {
	v := strings.TrimPrefix(h.Get("X-Linked-Etag"), "W/")
	v = strings.ToLower(strings.Trim(v, `"`))
	if len(v) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(v); err != nil {
		return ""
	}
	return v
}

// parseContentRange reads "bytes <start>-<end>/<size>"; size is -1 for "*".
func parseContentRange(v string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	first, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	if sz == "*" {
		return start, -1, true
	}
	size, err = strconv.ParseInt(sz, 10, 64)
	if err != nil || size < start {
		return 0, 0, false
	}
	return start, size, true
}

// syncDir flushes a folder entry after a rename, where the OS allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
