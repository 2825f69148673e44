package resp

import "strconv"

// AppendCommand appends a command as a client sends it: a RESP array of
// bulk strings (what a replica or MIGRATE sends to another server).
func AppendCommand[S ~string | ~[]byte](dst []byte, args ...S) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
