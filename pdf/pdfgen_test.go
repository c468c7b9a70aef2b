package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"fmt"
	"strings"
	"testing"
)

// This file is a tiny PDF 1.4 writer for tests: it builds files with
// correct cross-reference offsets, so the tests need no binary fixtures.

// genPage describes one generated page.
type genPage struct {
	lines   []string // text lines drawn with Helvetica 12pt, one Tj each
	image   bool     // draw a 1x1 image XObject
	content string   // raw content stream, used instead of lines and image
	filter  string   // /Filter entry of the content stream (e.g. an unsupported one)
}

// encryptMode selects the /Encrypt entry written to the trailer.
type encryptMode int

const (
	encryptNone        encryptMode = iota
	encryptUnsupported             // AES-256 (V=5, R=6) dictionary the library cannot handle
	encryptUserPass                // RC4 128-bit, user password "secret"
	encryptOwnerRC4                // RC4 128-bit, empty user password: readable without asking
	encryptOwnerAES                // AES-128 (V=4, AESV2), empty user password
	encryptOwnerRC440              // RC4 40-bit (R=2), empty user password
)

// textStream returns a content stream drawing lines top-down with Td.
func textStream(lines []string) string {
	var b strings.Builder
	b.WriteString("BT /F1 12 Tf 72 720 Td\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("0 -14 Td\n")
		}
		fmt.Fprintf(&b, "(%s) Tj\n", escapePDFString(l))
	}
	b.WriteString("ET\n")
	return b.String()
}

// escapePDFString escapes a literal string operand.
func escapePDFString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

// pdfWriter assembles numbered objects (1-based, in order) into a file.
type pdfWriter struct {
	objs    []string // object bodies without "n 0 obj"/"endobj"
	streams map[int][]byte
}

// add appends an object body and returns its number.
func (w *pdfWriter) add(body string) int {
	w.objs = append(w.objs, body)
	return len(w.objs)
}

// addStream appends a stream object with extra dictionary entries.
func (w *pdfWriter) addStream(dict string, data []byte) int {
	n := w.add(dict)
	if w.streams == nil {
		w.streams = make(map[int][]byte)
	}
	w.streams[n] = data
	return n
}

// bytes writes the file; trailer holds extra trailer entries, in which
// "XREF" stands for the offset of the cross-reference table.
func (w *pdfWriter) bytes(root int, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(w.objs)+1)
	for i, body := range w.objs {
		n := i + 1
		offsets[n] = b.Len()
		if data, ok := w.streams[n]; ok {
			fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d >>\nstream\n", n, body, len(data))
			b.Write(data)
			b.WriteString("\nendstream\nendobj\n")
			continue
		}
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(w.objs)+1)
	for _, off := range offsets[1:] {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	trailer = strings.ReplaceAll(trailer, "XREF", fmt.Sprint(xref))
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(w.objs)+1, root, trailer, xref)
	return b.Bytes()
}

// buildPDF returns a valid PDF 1.4 file with the given pages.
func buildPDF(t testing.TB, pages []genPage, enc encryptMode) []byte {
	t.Helper()
	w := &pdfWriter{}
	catalog := w.add("<< /Type /Catalog /Pages 2 0 R >>")
	w.add("") // page tree, filled in below
	fontObj := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	// /F2 maps code 0x41 to "Z" through its /ToUnicode CMap; /F3 has the
	// same CMap cut off inside a hex string, which hangs the library's
	// tokenizer if it is ever given it.
	const cmap = "begincmap 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <005A> endbfchar endcmap"
	goodCMap := w.addStream("", []byte(cmap))
	badCMap := w.addStream("", []byte(cmap+" 1 beginbfchar <42"))
	cmapFont := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>", goodCMap))
	badCMapFont := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode %d 0 R >>", badCMap))
	imageObj := w.addStream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", []byte{0x80})
	// /Fm1 draws text 100pt below the page's first line; /Fm2 draws text and
	// then itself, endlessly if nothing stops it.
	formObj := w.addStream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [1 0 0 1 0 -100] "+
		"/Resources << /Font << /F1 %d 0 R >> >>", fontObj), []byte("BT /F1 12 Tf 72 720 Td (inside a form) Tj ET"))
	loopObj := len(w.objs) + 1
	w.addStream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 612 792] "+
		"/Resources << /Font << /F1 %d 0 R >> /XObject << /Fm2 %d 0 R >> >>", fontObj, loopObj),
		[]byte("BT /F1 12 Tf 72 700 Td (deep) Tj ET /Fm2 Do"))

	var kids []string
	for _, p := range pages {
		content := p.content
		if content == "" {
			content = textStream(p.lines)
			if len(p.lines) == 0 {
				content = ""
			}
			if p.image {
				content += "q 100 0 0 100 72 600 cm /Im1 Do Q\n"
			}
		}
		dict := ""
		if p.filter != "" {
			dict = "/Filter /" + p.filter
		}
		contentObj := w.addStream(dict, []byte(content))
		pageObj := w.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "+
			"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >> /XObject << /Im1 %d 0 R /Fm1 %d 0 R /Fm2 %d 0 R >> >> "+
			"/Contents %d 0 R >>",
			fontObj, cmapFont, badCMapFont, imageObj, formObj, loopObj, contentObj))
		kids = append(kids, fmt.Sprintf("%d 0 R", pageObj))
	}
	w.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	return w.bytes(catalog, encryptTrailer(w, enc))
}

// Parameters of the generated RC4 encryption (PDF 32000-1 §7.6.3, R=2).
const (
	genFileID      = "0123456789abcdef"
	genPermissions = -4
)

// encryptTrailer encrypts w's streams in place as enc requires and returns
// the trailer entries describing the encryption.
func encryptTrailer(w *pdfWriter, enc encryptMode) string {
	ids := fmt.Sprintf("/ID [<%x> <%x>] ", genFileID, genFileID)
	switch enc {
	case encryptNone:
		return ""
	case encryptUnsupported:
		o, u := strings.Repeat("ab", 48), strings.Repeat("cd", 48)
		return fmt.Sprintf("/Encrypt << /Filter /Standard /V 5 /R 6 /Length 256 /O <%s> /U <%s> /P %d >> ", o, u, genPermissions) + ids
	}
	user, rev, keyLen := "", 3, 16
	switch enc {
	case encryptUserPass:
		user = "secret"
	case encryptOwnerRC440:
		rev, keyLen = 2, 5
	case encryptOwnerAES:
		rev = 4
	}
	o, u, key := securityParams(user, "owner", rev, keyLen)
	for n, data := range w.streams {
		w.streams[n] = encryptStream(key, n, data, rev == 4)
	}
	switch rev {
	case 2:
		return fmt.Sprintf("/Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /O <%x> /U <%x> /P %d >> ", o, u, genPermissions) + ids
	case 4:
		return fmt.Sprintf("/Encrypt << /Filter /Standard /V 4 /R 4 /Length 128 "+
			"/CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF /StdCF "+
			"/O <%x> /U <%x> /P %d >> ", o, u, genPermissions) + ids
	default:
		return fmt.Sprintf("/Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /O <%x> /U <%x> /P %d >> ", o, u, genPermissions) + ids
	}
}

// passwordPad is the padding string of the standard security handler.
func passwordPad() []byte {
	return []byte{
		0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
		0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
	}
}

// padPassword pads or truncates a password to 32 bytes.
func padPassword(pw string) []byte {
	return append([]byte(pw), passwordPad()...)[:32]
}

// rc4Rounds encrypts data with key, then (revision 3 and later) 19 more
// times with the key XORed with the round number.
func rc4Rounds(key, data []byte, rev int) []byte {
	out := append([]byte{}, data...)
	rounds := 0
	if rev >= 3 {
		rounds = 19
	}
	for i := 0; i <= rounds; i++ {
		k := make([]byte, len(key))
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(out, out)
	}
	return out
}

// md5Rounds hashes data, then (revision 3 and later) rehashes the first
// n bytes 50 times, returning the first n bytes.
func md5Rounds(data []byte, rev, n int) []byte {
	sum := md5.Sum(data)
	if rev >= 3 {
		for range 50 {
			sum = md5.Sum(sum[:n])
		}
	}
	return sum[:n]
}

// securityParams computes O, U and the file key of the standard security
// handler (PDF 32000-1 §7.6.3, Algorithms 2 to 5) for revisions 2 to 4.
func securityParams(user, owner string, rev, keyLen int) (o, u, key []byte) {
	o = rc4Rounds(md5Rounds(padPassword(owner), rev, keyLen), padPassword(user), rev)

	perms := int32(genPermissions)
	p := uint32(perms)
	in := append(append(padPassword(user), o...), byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
	key = md5Rounds(append(in, genFileID...), rev, keyLen)

	if rev == 2 {
		return o, rc4Rounds(key, passwordPad(), rev), key
	}
	sum := md5.Sum(append(passwordPad(), genFileID...))
	u = append(rc4Rounds(key, sum[:], rev), make([]byte, 16)...)
	return o, u, key
}

// encryptStream encrypts the data of object n (generation 0) with RC4 or,
// for AESV2, AES-128-CBC with a zero IV and PKCS#5 padding (Algorithm 1).
func encryptStream(key []byte, n int, data []byte, aesV2 bool) []byte {
	in := append(append([]byte{}, key...), byte(n), byte(n>>8), byte(n>>16), 0, 0)
	if aesV2 {
		in = append(in, "sAlT"...)
	}
	sum := md5.Sum(in)
	objKey := sum[:min(len(key)+5, 16)]
	if !aesV2 {
		c, _ := rc4.NewCipher(objKey)
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out
	}
	pad := aes.BlockSize - len(data)%aes.BlockSize
	plain := append(append([]byte{}, data...), bytes.Repeat([]byte{byte(pad)}, pad)...)
	block, _ := aes.NewCipher(objKey)
	out := make([]byte, aes.BlockSize+len(plain)) // zero IV first
	cipher.NewCBCEncrypter(block, out[:aes.BlockSize]).CryptBlocks(out[aes.BlockSize:], plain)
	return out
}

// xrefStreamPDF returns a file whose cross-reference stream has the given
// extra dictionary entries (e.g. a huge /Size); the stream itself lists no
// objects.
func xrefStreamPDF(entries string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	b.WriteString("2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "3 0 obj\n<< /Type /XRef /W [1 1 1] /Root 1 0 R %s /Length 0 >>\nstream\n\nendstream\nendobj\n", entries)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}
