package grid

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Two text layouts of the Federal Communications Commission are read here.
//
// The bulk exports of the FCC's filing databases (the International Bureau Filing System
// dump IBFS.zip: main.dat, address.dat, ...) are delimited text without a header row: the
// fields of a record are separated by "|" and every record ends with "|^|" and a line break
// (CRLF). A long text field may hold line breaks of its own, so a record is ended by the
// terminator, never by a line break. The sheet (named DelimitedSheetName) has one row per
// record: row n is the n-th record of the file, and its cells are the record's fields in
// the order of the table's layout (ibfs.txt). The text is Windows-1252 (UTF-8 is taken as
// such when the whole file is valid UTF-8).
//
// The public notices the FCC publishes as text (EDOCS attachments DOC-nnnnnnA1.txt, such as
// the weekly satellite notices "Space Station Applications Accepted for Filing" and "Actions
// Taken", Report No. SAT-nnnnn) are read line by line: row n is line n of the file, and its
// cells are the pieces of the line between the notice's column gaps (a tab, or two blanks
// or more), so an entry line "SAT-LOA-20250620-00151   E   S3120   Example LLC" has four
// cells. The sheet is named NoticeSheetName.

// Sheet names of the FCC text layouts.
const (
	DelimitedSheetName = "records"
	NoticeSheetName    = "notice"
)

// recordEnd is what ends every record of an FCC delimited export (before its line break).
var recordEnd = []byte("|^|")

// looksFCCDelimited reports whether data is an FCC delimited export: text that ends with a
// record terminator.
func looksFCCDelimited(data []byte) bool {
	return bytes.IndexByte(data, 0) < 0 && bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n\x1a"), recordEnd)
}

// noticeMarks are what the text of an FCC public notice carries near its top: the words
// PUBLIC NOTICE and a report number.
var noticeReport = regexp.MustCompile(`Report No\.\s*[A-Z]{2,4}-\d{3,6}`)

// looksNotice reports whether data is the text of an FCC public notice with a report number.
func looksNotice(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 || looksHTML(data) {
		return false
	}
	head := data[:min(len(data), 8192)]
	return bytes.Contains(bytes.ToUpper(head), []byte("PUBLIC NOTICE")) && noticeReport.Match(head)
}

// decodeText returns the file's text: as it is when it is valid UTF-8, else read as
// Windows-1252, the code page of the FCC's exports (a UTF-8 byte order mark is dropped).
func decodeText(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	for _, c := range data {
		switch {
		case c < 0x80:
			b.WriteByte(c)
		case c < 0xA0:
			b.WriteRune(cp1252[c-0x80])
		default:
			b.WriteRune(rune(c)) // 0xA0-0xFF are Latin-1, U+00A0-U+00FF
		}
	}
	return b.String()
}

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 to their characters (the five bytes the
// code page leaves undefined are kept as the C1 control of the same value).
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// parseFCCDelimited reads an FCC delimited export: one row per record, one cell per field.
func parseFCCDelimited(data []byte) *Workbook {
	text := decodeText(data)
	sh := &Sheet{Name: DelimitedSheetName}
	for len(text) > 0 {
		i := strings.Index(text, string(recordEnd))
		if i < 0 {
			// Text after the last terminator (a line break, an end-of-file mark) is no record.
			if strings.TrimSpace(strings.Trim(text, "\x1a")) != "" {
				sh.rows = append(sh.rows, delimitedRow(text))
			}
			break
		}
		sh.rows = append(sh.rows, delimitedRow(text[:i]))
		text = text[i+len(recordEnd):]
		// The record's own line break.
		text = strings.TrimPrefix(strings.TrimPrefix(text, "\r"), "\n")
	}
	return &Workbook{Format: "fcc-delimited", Sheets: []*Sheet{sh}}
}

func delimitedRow(rec string) []Cell {
	fields := strings.Split(rec, "|")
	cells := make([]Cell, len(fields))
	for j, v := range fields {
		if v != "" {
			cells[j] = Cell{Kind: Text, Value: v}
		}
	}
	// Trailing empty fields are kept: how many fields a record has is part of its layout.
	return cells
}

// noticeGap separates the cells of a notice line: a tab, a form feed, or two blanks or more.
var noticeGap = regexp.MustCompile(`[\t\f\v]+[ \t\f\v]*| {2,}[\t\f\v ]*`)

// parseNotice reads the text of an FCC public notice: one row per line, the line's pieces
// between column gaps as its cells.
func parseNotice(data []byte) *Workbook {
	text := strings.ReplaceAll(decodeText(data), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	sh := &Sheet{Name: NoticeSheetName, rows: make([][]Cell, len(lines))}
	for i, line := range lines {
		line = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r == '\u00a0' {
				return ' '
			}
			return r
		}, line))
		if line == "" {
			continue
		}
		parts := noticeGap.Split(line, -1)
		cells := make([]Cell, 0, len(parts))
		for _, p := range parts {
			cells = append(cells, Cell{Kind: Text, Value: p})
		}
		sh.rows[i] = cells
	}
	sh.rows = trimRows(sh.rows)
	return &Workbook{Format: "fcc-notice", Sheets: []*Sheet{sh}}
}
