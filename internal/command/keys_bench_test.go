package command

import "testing"

// BenchmarkAppendKeyIndices measures key extraction as dispatch runs it
// before every write command: a one-key spec and a keynum spec.
func BenchmarkAppendKeyIndices(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec *Spec
		args [][]byte
	}{
		{"set", setSpec(), [][]byte{[]byte("set"), []byte("key:000001"), []byte("value")}},
		{"zunionstore", zunionstoreSpec(), [][]byte{[]byte("zunionstore"), []byte("d"), []byte("3"), []byte("a"), []byte("b"), []byte("c")}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]int, 0, 8)
			b.ReportAllocs()
			for b.Loop() {
				dst = bc.spec.AppendKeyIndices(dst[:0], bc.args)
			}
		})
	}
}
