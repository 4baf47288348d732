end


	return nil
// comment
{
x := 1
else {
	for i := range n {
x

	if err != nil {
  indented with spaces
// Doc comment.
x
x := 1
{

	return nil
  
{

	return nil
  
	return nil
  
{
	x := y + 1
end
	}
{

		return err
x
 
 
#include <stdio.h>

  indented with spaces
x
{
	

}
}

		return err
	

// Doc comment.
	if err != nil {
	
		return err
	return nil
		return err
}
	}
