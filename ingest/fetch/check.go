package fetch

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Magic bytes at the start of each binary kind.
var (
	zipMagic      = []byte("PK\x03\x04")
	emptyZipMagic = []byte("PK\x05\x06")
	oleMagic      = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	pdfMagic      = []byte("%PDF-")
)

// sniffLen is how much of the start of a body is looked at to recognise it.
const sniffLen = 1024

// noun names the kind with its article, for messages: "an xlsx file".
func (k Kind) noun() string {
	switch k {
	case XLSX:
		return "an xlsx file"
	case XLS:
		return "an xls file"
	case CSV:
		return "a csv file"
	case ZIP:
		return "a zip archive"
	case JSON:
		return "a JSON document"
	case PDF:
		return "a PDF document"
	case TEXT:
		return "a text file"
	case ANSI:
		return "a text file (Windows-1252)"
	}
	return "a " + string(k) + " file"
}

// checkFile checks the file at path against kind. It returns a
// *RefusedError when the content is not of that kind; member, when set, is
// the zip member the file was extracted from.
func checkFile(path string, kind Kind, u, member string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("check download: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check download: %w", err)
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("check download: %w", err)
	}
	head = head[:n]
	what := "the body"
	if member != "" {
		what = fmt.Sprintf("zip member %q", member)
	}
	refuse := func(reason, advice string) error {
		return &RefusedError{URL: u, Reason: reason, Advice: advice}
	}
	wrongKind := func() error {
		return refuse(fmt.Sprintf("%s is %s, not %s", what, describe(head), kind.noun()), kindAdvice(kind, head, member))
	}

	if len(head) == 0 {
		return refuse(what+" is empty", "check the URL or try again later")
	}
	if looksHTML(head) {
		if member != "" {
			return refuse(fmt.Sprintf("%s is an HTML page, not %s", what, kind.noun()), "check Source.ZipMember and Source.Kind")
		}
		return refuse("the server returned an HTML page, not "+kind.noun()+" (an error or login page?)", "check the URL or try again later")
	}

	switch kind {
	case XLSX, ZIP:
		if !bytes.HasPrefix(head, zipMagic) {
			return wrongKind()
		}
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			return refuse(fmt.Sprintf("%s starts like %s but cannot be read as one (%v)", what, kind.noun(), err),
				"it is probably truncated or damaged; try again later")
		}
		if kind == XLSX && findMember(zr.File, "[Content_Types].xml") == nil {
			return refuse(fmt.Sprintf("%s is a zip archive but not an xlsx workbook (it has no [Content_Types].xml; it contains %s)", what, listMembers(zr.File)),
				"check the URL; if the workbook is inside this archive, set Source.ZipMember")
		}
	case XLS:
		if !bytes.HasPrefix(head, oleMagic) {
			return wrongKind()
		}
		if fi.Size() < 512 {
			return refuse(fmt.Sprintf("%s starts like an xls file but is only %d bytes, shorter than its 512-byte header", what, fi.Size()),
				"it is probably truncated; try again later")
		}
	case PDF:
		if !bytes.HasPrefix(head, pdfMagic) {
			return wrongKind()
		}
	case ANSI:
		// Any byte is a character of the code page; binary data shows itself by NUL bytes or
		// by the magic of another kind.
		if bytes.HasPrefix(head, zipMagic) || bytes.HasPrefix(head, oleMagic) || bytes.HasPrefix(head, pdfMagic) {
			return wrongKind()
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("check download: %w", err)
		}
		if at, err := nulAt(f); err != nil {
			return fmt.Errorf("check download: %w", err)
		} else if at >= 0 {
			return refuse(fmt.Sprintf("%s is not text: it contains a NUL byte at offset %d (binary data, or UTF-16 text)", what, at), kindAdvice(kind, head, member))
		}
	case CSV, TEXT, JSON:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("check download: %w", err)
		}
		problem, err := checkText(f, kind == CSV)
		if err != nil {
			return fmt.Errorf("check download: %w", err)
		}
		if problem != "" {
			if bytes.HasPrefix(head, zipMagic) || bytes.HasPrefix(head, oleMagic) || bytes.HasPrefix(head, pdfMagic) || bytes.IndexByte(head, 0) >= 0 {
				return wrongKind()
			}
			return refuse(fmt.Sprintf("%s is not %s text: %s", what, kind, problem), kindAdvice(kind, head, member))
		}
		if kind == JSON {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("check download: %w", err)
			}
			if err := checkJSON(f); err != nil {
				return refuse(fmt.Sprintf("%s is not a JSON document: %v", what, err), "check the URL and its query parameters (an API key or a bad parameter often returns an error page)")
			}
		}
	}
	return nil
}

// nulAt returns the offset of the first NUL byte read from r, -1 when there is none.
func nulAt(r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var off int64
	for {
		n, err := r.Read(buf)
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			return off + int64(i), nil
		}
		off += int64(n)
		if err == io.EOF {
			return -1, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// checkJSON reads one JSON value from r to its end and refuses trailing data.
func checkJSON(r io.Reader) error {
	dec := json.NewDecoder(r)
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the first JSON value")
	}
	return nil
}

// kindAdvice says what to do when a body is not of the expected kind.
func kindAdvice(kind Kind, head []byte, member string) string {
	fix := "check the URL"
	if member != "" {
		fix = "check Source.ZipMember"
	}
	switch {
	case bytes.HasPrefix(head, zipMagic) && kind == XLS:
		return fix + "; if this really is the file, it may be an xlsx workbook: set Source.Kind to xlsx"
	case bytes.HasPrefix(head, oleMagic) && kind == XLSX:
		return fix + "; if this really is the file, it may be a legacy xls workbook: set Source.Kind to xls"
	case bytes.HasPrefix(head, zipMagic) && kind == CSV && member == "":
		return fix + "; if the csv is inside this archive, set Source.ZipMember"
	}
	return fix + " and Source.Kind"
}

// looksHTML reports whether a body starts like an HTML document: after
// optional whitespace, a byte order mark, an XML declaration and comments,
// it begins with "<!DOCTYPE html", "<html", "<head" or "<body" (in any case).
func looksHTML(head []byte) bool {
	s := head
	for {
		s = bytes.TrimPrefix(bytes.TrimLeft(s, " \t\r\n\f\v"), []byte("\xEF\xBB\xBF"))
		s = bytes.TrimLeft(s, " \t\r\n\f\v")
		var end []byte
		switch {
		case hasPrefixFold(s, "<!--"):
			end = []byte("-->")
		case hasPrefixFold(s, "<?xml"):
			end = []byte("?>")
		}
		if end == nil {
			break
		}
		i := bytes.Index(s, end)
		if i < 0 {
			return false
		}
		s = s[i+len(end):]
	}
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body"} {
		if hasPrefixFold(s, p) {
			if len(s) == len(p) {
				return true
			}
			switch c := s[len(p)]; c {
			case '>', ' ', '\t', '\r', '\n', '\f', '/':
				return true
			}
		}
	}
	return false
}

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(string(s[:len(prefix)]), prefix)
}

// describe says in a few words what a body that starts with head looks like.
func describe(head []byte) string {
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(head) == 0:
		return "empty"
	case looksHTML(head):
		return "an HTML page"
	case bytes.HasPrefix(head, zipMagic):
		return "a zip archive (or xlsx file)"
	case bytes.HasPrefix(head, emptyZipMagic):
		return "an empty zip archive"
	case bytes.HasPrefix(head, oleMagic):
		return "an OLE2 compound file (a legacy xls or doc file)"
	case bytes.HasPrefix(head, []byte("%PDF")):
		return "a PDF document"
	case bytes.HasPrefix(head, []byte{0x1F, 0x8B}):
		return "a gzip file"
	case bytes.HasPrefix(trimmed, []byte("<?xml")):
		return "an XML document"
	case bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("[")):
		if utf8.Valid(head) {
			return fmt.Sprintf("text (JSON?) starting %q", clip(head, 40))
		}
	}
	if bytes.IndexByte(head, 0) < 0 && utf8.Valid(trimUTF8Tail(head)) {
		return fmt.Sprintf("text starting %q", clip(head, 40))
	}
	return fmt.Sprintf("binary data starting % X", clip(head, 8))
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		b = trimUTF8Tail(b[:n])
	}
	return b
}

// trimUTF8Tail drops an incomplete UTF-8 sequence at the end of b.
func trimUTF8Tail(b []byte) []byte {
	return b[:len(b)-incompleteTail(b)]
}

// incompleteTail returns the length of an incomplete (but possibly valid
// once more bytes arrive) UTF-8 sequence at the end of b.
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}

// checkText reads r to the end and returns a description of why it is not
// text (valid UTF-8 without NUL bytes; for csv, also with at least one comma or
// line break), or "" if it is. The error is a read error.
func checkText(r io.Reader, csv bool) (string, error) {
	buf := make([]byte, 64<<10)
	carry := 0
	var off int64 // offset of buf[0] in the stream
	sawSep := false
	for {
		n, rerr := r.Read(buf[carry:])
		data := buf[:carry+n]
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return fmt.Sprintf("it contains a NUL byte at offset %d (binary data, or UTF-16 text)", off+int64(i)), nil
		}
		if !sawSep && bytes.ContainsAny(data, ",\n") {
			sawSep = true
		}
		keep := 0
		if rerr == nil {
			keep = incompleteTail(data)
		}
		if body := data[:len(data)-keep]; !utf8.Valid(body) {
			i := invalidAt(body)
			return fmt.Sprintf("it is not valid UTF-8 (byte %#02x at offset %d); it may be in another encoding", body[i], off+int64(i)), nil
		}
		copy(buf, data[len(data)-keep:])
		off += int64(len(data) - keep)
		carry = keep
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", rerr
		}
	}
	if csv && !sawSep {
		return "it has no comma and no line break", nil
	}
	return "", nil
}

// invalidAt returns the offset of the first invalid UTF-8 sequence in b.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}
