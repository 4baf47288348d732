 
	x := y + 1
else {
	x := y + 1
else {
