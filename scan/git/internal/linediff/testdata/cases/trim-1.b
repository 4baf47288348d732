x
   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

   		y
			z

        z
x
	x
