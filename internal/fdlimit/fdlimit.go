// Package fdlimit fits the number of clients a server accepts to the file
// descriptors the process may open (RLIMIT_NOFILE), as Redis's
// adjustOpenFilesLimit does: every client costs a descriptor, and a server
// that runs out of them cannot accept, open a file or log.
//
// It only reads and raises the process's limit; it never lowers it, and it
// keeps no state.
package fdlimit

import (
	"fmt"
	"log/slog"
)

// Reserved is how many descriptors are kept for everything but clients
// (listeners, the engine's files, the log), Redis's CONFIG_MIN_RESERVED_FDS.
const Reserved = 32

// Fit makes room for maxclients clients: if the soft limit on open files is
// below maxclients+Reserved it raises it, as far as the hard limit (or, with
// the privilege, beyond) allows, and returns the most clients the limit then
// allows: maxclients, or fewer. It logs what it did with Redis's lines. It
// fails only when the limit leaves no descriptor for a client.
func Fit(maxclients int, log *slog.Logger) (int, error) {
	want := uint64(maxclients) + Reserved
	cur, hard, err := getLimit()
	if err != nil {
		log.Warn(fmt.Sprintf("Unable to obtain the current NOFILE limit (%v), assuming 1024 and setting the max clients configuration accordingly.", err))
		return min(maxclients, 1024-Reserved), nil
	}
	if cur >= want {
		return maxclients, nil
	}
	best, setErr := raise(cur, hard, want)
	if best >= want {
		log.Info(fmt.Sprintf("Increased maximum number of open files to %d (it was originally set to %d).", want, cur))
		return maxclients, nil
	}
	if best <= Reserved {
		return 0, fmt.Errorf("your current 'ulimit -n' of %d is not enough for the server to start; please increase your open file limit to at least %d", cur, want)
	}
	fit := int(best - Reserved)
	log.Warn(fmt.Sprintf("You requested maxclients of %d requiring at least %d max file descriptors.", maxclients, want))
	if setErr != nil {
		log.Warn(fmt.Sprintf("Server can't set maximum open files to %d because of OS error: %v.", want, setErr))
	}
	log.Warn(fmt.Sprintf("Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", best, fit))
	return fit, nil
}

// raise tries to lift the soft limit from cur to want, and returns the limit
// in force afterwards, with the error that stopped it short of want. Without
// privilege the soft limit may go up to the hard one; with it the hard one
// may be raised too, which is tried first.
func raise(cur, hard, want uint64) (uint64, error) {
	if want <= hard {
		if err := setLimit(want, hard); err != nil {
			return cur, err
		}
		return want, nil
	}
	err := setLimit(want, want)
	if err == nil {
		return want, nil
	}
	if hard > cur && setLimit(hard, hard) == nil {
		return hard, err
	}
	return cur, err
}
