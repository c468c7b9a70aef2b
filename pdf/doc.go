// Package pdf will extract text per page from PDF attachments so they can
// be indexed and searched with "[page: N]" markers. It is empty until the
// persistent index lands; PDFs are not read yet.
package pdf
