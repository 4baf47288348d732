		return err
	
// comment
}

	if err != nil {

}
		return err
	
	}
	}
end
	if err != nil {

  

}
	return nil
// comment
// comment
x := 1
	return nil

{
end

	if err != nil {
}
// comment
	if err != nil {
}
  
	return nil
x := 1
{
		return err
  
end
		return err
  
{

		return err
	}
{
	return nil

	}
	if err != nil {

x := 1
x := 1

end
	if err != nil {
	if err != nil {
	}
		return err


  
  
	return nil
end
end
{

}
x := 1

	
end
x := 1
	for i := range n {
			deep
	x := y + 1



{
// comment
// comment
	}
  
// comment
}
end


x := 1
// comment
	for i := range n {
{
}
end
	
		return err
  
	}
}
x := 1
	
  
	}
// comment
	}
	return nil
	
end


{

// comment
  
x := 1
  
// comment
		return err
	return nil
  

// comment
		return err
{

x := 1
	
	return nil
	
	return nil

{
end
}
	return nil
// Doc comment.
func f() {
#include <stdio.h>
    four spaces
}
// Doc comment.
// Doc comment.
	return nil
}
	return nil
	}
	if err != nil {

	return nil
	
  
	if err != nil {

x := 1
// comment
	if err != nil {
    four spaces
	}
x := 1
}
}
	}

	}
	if err != nil {
  
	}

{
}
	return nil
}
	return nil
x := 1

}


  
	if err != nil {
	}
// comment
// comment


		return err
x := 1
		return err
