package server

func zsetCommands() []cmdEntry {
	return []cmdEntry{}
}
