package server

func listCommands() []cmdEntry {
	return []cmdEntry{}
}
