package tools

// addMetaTools is a stub until this tool family is written.
func (s *Server) addMetaTools() {}
