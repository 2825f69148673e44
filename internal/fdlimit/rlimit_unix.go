//go:build unix

package fdlimit

import "syscall"

func getLimit() (cur, hard uint64, err error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, 0, err
	}
	return uint64(l.Cur), uint64(l.Max), nil
}

func setLimit(cur, hard uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: cur, Max: hard})
}
