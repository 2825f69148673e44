//go:build !unix

package fdlimit

import "errors"

var errUnsupported = errors.New("no RLIMIT_NOFILE on this platform")

func getLimit() (cur, hard uint64, err error) { return 0, 0, errUnsupported }

func setLimit(cur, hard uint64) error { return errUnsupported }
