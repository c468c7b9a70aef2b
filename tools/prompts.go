package tools

// addPrompts is a stub until this tool family is written.
func (s *Server) addPrompts() {}
