func a() {
	x()
}

func b() {
	x()
}

func c() {
	x()
}
