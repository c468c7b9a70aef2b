package tools

// addResources is a stub until this tool family is written.
func (s *Server) addResources() {}
