package pdf

// Default limits applied by Extract when the corresponding Options field is
// zero (or negative).
const (
	// DefaultMaxBytes is the default largest file Extract will read: 64 MiB.
	DefaultMaxBytes int64 = 64 << 20
	// DefaultMaxPages is the default number of pages Extract reads.
	DefaultMaxPages = 2000
	// DefaultMaxTextBytes is the default total amount of page text Extract
	// collects per file: 8 MiB.
	DefaultMaxTextBytes = 8 << 20
)

// Options bound the work done on one file. The zero value uses the defaults.
type Options struct {
	// MaxBytes refuses files larger than this many bytes with ErrTooLarge
	// (0: DefaultMaxBytes).
	MaxBytes int64
	// MaxPages reads only the first MaxPages pages and sets
	// Document.Truncated when the file has more (0: DefaultMaxPages).
	MaxPages int
	// MaxTextBytes stops collecting text once this many bytes of page text
	// have been gathered in total and sets Document.Truncated
	// (0: DefaultMaxTextBytes).
	MaxTextBytes int
}

// withDefaults returns o with every unset (zero or negative) limit replaced
// by its default.
func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = DefaultMaxTextBytes
	}
	return o
}
