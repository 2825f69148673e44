package server

import "fmt"

// renameCommands applies the configuration's rename-command directives to
// the command table, in order, as Redis does while it reads its
// configuration file: a renamed command answers only to its new name, a
// command renamed to "" to none. Every path to a command (a client, MULTI,
// a script) looks it up in the table, so all of them see the new names.
func (s *Server) renameCommands() error {
	for _, r := range s.cfg.Renames() {
		if err := s.table.Rename(r.Old, r.New); err != nil {
			return fmt.Errorf("%s: %w", r.Where, err)
		}
	}
	return nil
}
