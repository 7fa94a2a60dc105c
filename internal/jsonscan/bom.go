package jsonscan

import "bytes"

// BOM is the UTF-8 byte-order mark, which some editors (Windows Notepad,
// Excel's "CSV UTF-8") write at the start of a text file.
const BOM = "\xef\xbb\xbf"

// StripBOM returns line without a leading UTF-8 byte-order mark when it is
// line 1 (no counts lines from 1) of its file; JSON Lines readers call it
// so that such a file reads as the same file without the mark. A mark
// anywhere else is left, to be refused as the malformed input it is.
func StripBOM(line []byte, no int) []byte {
	if no == 1 {
		return bytes.TrimPrefix(line, []byte(BOM))
	}
	return line
}
