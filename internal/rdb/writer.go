package rdb

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// FileVersion is the RDB file version FileWriter writes: Redis 7.0's, so
// that every Redis 7 loads the file.
const FileVersion = DumpVersion

// FileWriter writes an RDB file: the header, AUX fields, function
// libraries, then each database's keys, then the EOF opcode and checksum
// (Close). Its first error sticks and is returned by every later call.
type FileWriter struct {
	w   *bufio.Writer
	crc uint64
	buf []byte
	val []byte
	err error
}

// NewFileWriter writes the header and the AUX fields (name, value pairs).
func NewFileWriter(w io.Writer, aux [][2]string) *FileWriter {
	fw := &FileWriter{w: bufio.NewWriterSize(w, 64<<10)}
	fw.write(fmt.Appendf(nil, "REDIS%04d", FileVersion))
	for _, a := range aux {
		b := append(fw.buf[:0], opAux)
		b = AppendString(b, []byte(a[0]))
		fw.buf = AppendString(b, []byte(a[1]))
		fw.write(fw.buf)
	}
	return fw
}

func (fw *FileWriter) write(p []byte) {
	if fw.err != nil {
		return
	}
	fw.crc = CRC64(fw.crc, p)
	_, fw.err = fw.w.Write(p)
}

// Function writes a function library's code.
func (fw *FileWriter) Function(code []byte) error {
	fw.buf = AppendString(append(fw.buf[:0], OpFunction2), code)
	fw.write(fw.buf)
	return fw.err
}

// SelectDB starts database db, announcing its number of keys and of keys
// with a deadline.
func (fw *FileWriter) SelectDB(db int, keys, expires uint64) error {
	b := AppendLength(append(fw.buf[:0], opSelectDB), uint64(db))
	b = AppendLength(append(b, opResizeDB), keys)
	fw.buf = AppendLength(b, expires)
	fw.write(fw.buf)
	return fw.err
}

// Key writes a key, its value and its deadline (absolute ms, or -1 for
// none). Hash field deadlines and stream consumers' active times have no
// form in the version written; they are left out.
func (fw *FileWriter) Key(key []byte, o Object, expireMs int64) error {
	b := fw.buf[:0]
	if expireMs >= 0 {
		b = binary.LittleEndian.AppendUint64(append(b, opExpireTimeMS), uint64(expireMs))
	}
	o.FieldDeadlines = nil
	// AppendValue's payload is the type byte and the value, then the
	// DUMP trailer, which a file does not have; the key goes between the
	// type and the value.
	fw.val = AppendValue(fw.val[:0], o)
	val := fw.val[:len(fw.val)-10]
	b = AppendString(append(b, val[0]), key)
	fw.buf = append(b, val[1:]...)
	fw.write(fw.buf)
	if cap(fw.buf) > 4<<20 {
		// A large value's buffers are not kept for the small ones.
		fw.buf, fw.val = nil, nil
	}
	return fw.err
}

// Close writes the EOF opcode and the checksum and flushes; it does not
// close the underlying writer.
func (fw *FileWriter) Close() error {
	fw.write([]byte{opEOF})
	if fw.err != nil {
		return fw.err
	}
	if _, err := fw.w.Write(binary.LittleEndian.AppendUint64(nil, fw.crc)); err != nil {
		return err
	}
	return fw.w.Flush()
}
