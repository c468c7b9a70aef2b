package tools

// addNoteTools is a stub until this tool family is written.
func (s *Server) addNoteTools() {}
