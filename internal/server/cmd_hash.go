package server

func hashCommands() []cmdEntry {
	return []cmdEntry{}
}
