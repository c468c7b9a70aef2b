package tools

// addLinkTools is a stub until this tool family is written.
func (s *Server) addLinkTools() {}
