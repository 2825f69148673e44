package resp

import (
	"bytes"
	"strings"
	"testing"
)

func BenchmarkReadCommand(b *testing.B) {
	cmd := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$128\r\n" + strings.Repeat("v", 128) + "\r\n")
	r := NewReader(&loopReader{data: bytes.Repeat(cmd, 97)})
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCommandInline(b *testing.B) {
	cmd := []byte("SET key " + strings.Repeat("v", 128) + "\r\n")
	r := NewReader(&loopReader{data: bytes.Repeat(cmd, 97)})
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCommandBigArgument(b *testing.B) {
	value := strings.Repeat("v", 1<<20)
	cmd := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$1048576\r\n" + value + "\r\n")
	r := NewReader(&loopReader{data: cmd})
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteBulk(b *testing.B) {
	value := bytes.Repeat([]byte("v"), 128)
	w := NewWriter(discard{})
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	for b.Loop() {
		w.Bulk(value)
		if w.Buffered() > 16<<10 {
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkWriteArrayOfBulks(b *testing.B) {
	values := make([][]byte, 100)
	for i := range values {
		values[i] = bytes.Repeat([]byte{byte('a' + i%26)}, 32)
	}
	w := NewWriter(discard{})
	b.ReportAllocs()
	for b.Loop() {
		w.Array(len(values))
		for _, v := range values {
			w.Bulk(v)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
