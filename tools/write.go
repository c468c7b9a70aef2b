package tools

// addWriteTools is a stub until this tool family is written.
func (s *Server) addWriteTools() {}
