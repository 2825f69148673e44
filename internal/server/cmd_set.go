package server

func setCommands() []cmdEntry {
	return []cmdEntry{}
}
