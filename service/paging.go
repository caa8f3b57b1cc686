package service

// CursorParam is the query parameter that asks for the next page of a paged answer: the
// summary.next_cursor of the page before.
const CursorParam = "cursor"
