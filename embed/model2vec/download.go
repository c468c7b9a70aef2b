package model2vec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
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
	// ErrTooLarge: a file is larger than its size limit (see
	// InstallOptions.MaxModelBytes); the partial file was deleted.
	ErrTooLarge = errors.New("file too large")
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

// download fetches one file into dest through dest+".part". The
// validator of the response that started the partial file is kept next
// to it in dest+".part.meta", so that a resumed request (now or in a later
// Install) carries If-Range and the server sends the whole file again if
// it changed: a file is never stitched from two versions.
type download struct {
	url, dest, pinned string
	name              string // the manifest's name: the path in the repository
	limit             int64  // most bytes the file may have
	opts              InstallOptions
	progress          Progress
}

// shown is the URL for messages: see redactURL.
func (d *download) shown() string { return redactURL(d.url) }

// run downloads with retries, resuming the partial file each time.
func (d *download) run(ctx context.Context) (ManifestFile, error) {
	for attempt := 0; ; attempt++ {
		res, err := d.attempt(ctx)
		if err == nil {
			return res, nil
		}
		var t transientError
		if !errors.As(err, &t) || attempt >= d.opts.Retries || ctx.Err() != nil {
			if ctx.Err() != nil {
				return ManifestFile{}, fmt.Errorf("download %s: %w (partial file kept; run again to resume)", d.shown(), ctx.Err())
			}
			return ManifestFile{}, err
		}
		wait := min(250*time.Millisecond<<attempt, 5*time.Second)
		select {
		case <-ctx.Done():
			return ManifestFile{}, fmt.Errorf("download %s: %w (partial file kept; run again to resume)", d.shown(), ctx.Err())
		case <-time.After(wait):
		}
	}
}

// validator identifies one version of a file: the strong ETag or the
// Last-Modified date of the response that started the partial file.
type validator struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// validatorOf reads a response's validator; weak ETags cannot be used
// with If-Range.
func validatorOf(h http.Header) validator {
	v := validator{ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified")}
	if strings.HasPrefix(v.ETag, "W/") || !strings.HasPrefix(v.ETag, `"`) {
		v.ETag = ""
	}
	return v
}

// ifRange is the If-Range value, "" when there is no validator.
func (v validator) ifRange() string {
	if v.ETag != "" {
		return v.ETag
	}
	return v.LastModified
}

// metaPath is where the validator of part is kept.
func metaPath(part string) string { return part + ".meta" }

// discard deletes the partial file and its validator.
func discard(part string) {
	os.Remove(part)
	os.Remove(metaPath(part))
}

// resumeState returns the size of the partial file, a hash primed with its
// content and the validator to resume it with. A partial file that cannot
// be resumed safely (no validator recorded, or already over the limit) is
// deleted, and the download starts over.
func (d *download) resumeState(ctx context.Context, part string) (int64, hash.Hash, validator, error) {
	h := sha256.New()
	var v validator
	st, err := os.Stat(part)
	if errors.Is(err, os.ErrNotExist) {
		os.Remove(metaPath(part))
		return 0, h, v, nil
	}
	if err != nil {
		return 0, nil, v, fmt.Errorf("stat partial file: %w", err)
	}
	if data, err := os.ReadFile(metaPath(part)); err == nil {
		_ = json.Unmarshal(data, &v) // a damaged record only costs a restart
	}
	if st.Size() > 0 && (v.ifRange() == "" || st.Size() > d.limit) {
		discard(part)
		return 0, h, validator{}, nil
	}
	f, err := os.Open(part)
	if err != nil {
		return 0, nil, v, fmt.Errorf("open partial file: %w", err)
	}
	defer f.Close()
	n, err := io.CopyN(h, ctxReader{ctx, f}, st.Size())
	if err != nil {
		return 0, nil, v, fmt.Errorf("read partial file: %w", err)
	}
	return n, h, v, nil
}

// attempt makes one request, appending to the partial file from where it
// ends, and installs the file when it is complete and checks out.
func (d *download) attempt(ctx context.Context) (ManifestFile, error) {
	part := d.dest + ".part"
	offset, h, val, err := d.resumeState(ctx, part)
	if err != nil {
		return ManifestFile{}, err
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(d.opts.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()

	resp, announced, err := d.request(reqCtx, offset, val)
	if err != nil {
		return ManifestFile{}, d.transferError(ctx, reqCtx, err)
	}
	defer resp.Body.Close()
	total, err := d.accept(resp, part, &offset, val)
	if err != nil {
		return ManifestFile{}, err
	}
	if offset == 0 {
		h.Reset()
	}
	done, err := d.receive(part, h, stallReader{resp.Body, stall, d.opts.StallTimeout}, offset, total)
	if err != nil {
		var werr writeError
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDiskFull) || errors.As(err, &werr) {
			return ManifestFile{}, err
		}
		return ManifestFile{}, d.transferError(ctx, reqCtx, err)
	}
	if total >= 0 && done != total {
		return ManifestFile{}, transientError{fmt.Errorf("download %s: got %d of %d bytes", d.shown(), done, total)}
	}
	return d.install(part, h, done, *announced)
}

// request sends the GET, asking for the rest of the partial file when
// there is one. announced receives the SHA-256 a Hugging Face redirect
// announces in X-Linked-Etag.
func (d *download) request(ctx context.Context, offset int64, val validator) (*http.Response, *string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
		// The rest only if the file is still the one we have the start
		// of; else the server answers 200 with the whole new file.
		req.Header.Set("If-Range", val.ifRange())
	}
	announced := new(string)
	client := *d.opts.Client
	next := client.CheckRedirect
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if r.Response != nil {
			if s := linkedSHA256(r.Response.Header); s != "" {
				*announced = s
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
		return nil, nil, err
	}
	if s := linkedSHA256(resp.Header); s != "" {
		*announced = s
	}
	return resp, announced, nil
}

// accept checks the response status and returns the total size (-1 when
// unknown). A full answer resets *offset to 0: the download starts over.
func (d *download) accept(resp *http.Response, part string, offset *int64, val validator) (int64, error) {
	total := int64(-1)
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
		*offset = 0 // a full answer: start over even if we asked to resume
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
		if err := d.tooLarge(part, total); err != nil {
			return 0, err
		}
		// Remember what this version is, for resuming it later.
		if err := saveValidator(part, validatorOf(resp.Header)); err != nil {
			return 0, fmt.Errorf("download %s: %w", d.shown(), err)
		}
	case code == http.StatusPartialContent:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != *offset {
			discard(part)
			return 0, transientError{fmt.Errorf("download %s: unexpected Content-Range %q for offset %d; starting over", d.shown(), resp.Header.Get("Content-Range"), *offset)}
		}
		if got := validatorOf(resp.Header).ETag; got != "" && val.ETag != "" && got != val.ETag {
			// A server that ignored If-Range, sending part of another version.
			discard(part)
			return 0, transientError{fmt.Errorf("download %s: the file changed on the server (ETag %s, was %s); starting over", d.shown(), got, val.ETag)}
		}
		total = size
		if err := d.tooLarge(part, total); err != nil {
			return 0, err
		}
	case code == http.StatusRequestedRangeNotSatisfiable:
		discard(part)
		return 0, transientError{fmt.Errorf("download %s: server cannot resume at byte %d; starting over", d.shown(), *offset)}
	case code == http.StatusNotFound:
		return 0, fmt.Errorf("download %s: %w (HTTP 404)", d.shown(), ErrNotFound)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return 0, fmt.Errorf("download %s: access denied (HTTP %d); the repository may be private or gated", d.shown(), code)
	case code == http.StatusTooManyRequests || code >= 500:
		return 0, transientError{fmt.Errorf("download %s: server error %s", d.shown(), resp.Status)}
	default:
		return 0, fmt.Errorf("download %s: unexpected HTTP status %s", d.shown(), resp.Status)
	}
	return total, nil
}

// receive appends the body to the partial file (truncating it first when
// offset is 0) and returns the file's size. Errors that are final (over
// the limit, disk full, a failed write) come back wrapped for the user;
// the rest are transfer errors for the caller to classify.
func (d *download) receive(part string, h hash.Hash, body io.Reader, offset, total int64) (int64, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if offset == 0 {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return 0, writeError{fmt.Errorf("download %s: %w", d.shown(), err)}
	}
	done, err := d.copy(f, h, body, offset, total)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var werr writeError
	switch {
	case err == nil:
		return done, nil
	case errors.Is(err, ErrTooLarge):
		discard(part)
		return 0, fmt.Errorf("download %s: %w: more than %d bytes (partial file deleted)", d.shown(), ErrTooLarge, d.limit)
	case errors.Is(err, syscall.ENOSPC):
		discard(part)
		return 0, fmt.Errorf("download %s: writing %s: %w (partial file deleted)", d.shown(), part, ErrDiskFull)
	case errors.As(err, &werr):
		return 0, writeError{fmt.Errorf("download %s: writing %s: %w", d.shown(), part, werr.err)}
	}
	return 0, err
}

// install checks the finished partial file against the pinned or
// announced SHA-256 and moves it into place.
func (d *download) install(part string, h hash.Hash, size int64, announced string) (ManifestFile, error) {
	sum := hex.EncodeToString(h.Sum(nil))
	expected, how := d.pinned, verifiedPinned
	if expected == "" {
		expected, how = announced, verifiedServer
	}
	if expected == "" {
		how = verifiedRecorded
	} else if !strings.EqualFold(sum, expected) {
		discard(part)
		return ManifestFile{}, fmt.Errorf("download %s: sha256 %s, expected %s: %w (partial file deleted)", d.shown(), sum, expected, ErrChecksum)
	}
	if err := os.Rename(part, d.dest); err != nil {
		return ManifestFile{}, fmt.Errorf("download %s: %w", d.shown(), err)
	}
	os.Remove(metaPath(part))
	syncDir(filepath.Dir(d.dest))
	return ManifestFile{Name: d.name, Size: size, SHA256: sum, Verified: how}, nil
}

// tooLarge fails, deleting the partial file, when the server announces
// more than the limit.
func (d *download) tooLarge(part string, total int64) error {
	if total <= d.limit {
		return nil
	}
	discard(part)
	return fmt.Errorf("download %s: %w: %d bytes, the limit is %d", d.shown(), ErrTooLarge, total, d.limit)
}

// saveValidator records v for part, or removes the record when the
// response had no validator (such a partial file is not resumed).
func saveValidator(part string, v validator) error {
	if v.ifRange() == "" {
		if err := os.Remove(metaPath(part)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFileAtomic(metaPath(part), data)
}

// writeError marks a failure writing the partial file (not retried).
type writeError struct{ err error }

// Error returns the wrapped error's message.
func (e writeError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e writeError) Unwrap() error { return e.err }

// copy appends the body to f and h, reporting progress, and returns the
// size of the partial file. It stops with ErrTooLarge before the file
// would exceed d.limit, whatever the server announced.
func (d *download) copy(f *os.File, h hash.Hash, body io.Reader, offset, total int64) (int64, error) {
	buf := make([]byte, 256<<10)
	done, reported := offset, int64(-1)
	p := d.progress
	p.Total = total
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			if int64(n) > d.limit-done {
				return done, ErrTooLarge
			}
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
		return fmt.Errorf("download %s: %w", d.shown(), ctx.Err())
	}
	if errors.Is(context.Cause(reqCtx), errStalled) {
		return transientError{fmt.Errorf("download %s: %w (%s)", d.shown(), errStalled, d.opts.StallTimeout)}
	}
	// *url.Error quotes the URL, maybe a redirect's signed one: redact it.
	if ue, ok := errors.AsType[*url.Error](err); ok {
		ue.URL = redactURL(ue.URL)
	}
	return transientError{fmt.Errorf("download %s: %w", d.shown(), err)}
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

// redactURL formats a URL for messages: the password masked
// ((*url.URL).Redacted) and the query, which may carry a token or a
// signature, left out.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "[unparsable URL]"
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.Redacted()
}

// syncDir flushes a folder entry after a rename, where the OS allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
