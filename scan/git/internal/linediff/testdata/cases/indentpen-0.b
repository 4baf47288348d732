  y
	x
	x
	if err != nil {
int main(void)
		return err
end
	x
	x
