line 40
line 16
		line 30
			line 51
			line 35
			line 47
			line 51
	x := y + 1

		line 42
			line 11
line 52
line 36
	line 1
		line 22
		line 30
			line 51
line 4
			line 35

line 32
			line 11
			line 35
			line 35
			line 35
line 52
line 28
	line 29
	return nil
// Doc comment.
		line 2
	line 53
line 12
		line 2
	line 45
    four spaces
case 1:
line 32

// Doc comment.
	for i := range n {
	line 33
			line 15
line 8
	line 53
		line 50
			line 15
	line 41
		line 34
	line 45
	line 41
	}
	
} else {
{
		line 2
line 16
		s += i
	return nil

	return nil
		line 30
			line 11
	line 25
			line 31
			deep
			line 23
x
	
// Doc comment.
	line 33
			line 27
	}
line 0
	line 13
			line 19
	line 45
			line 43
	line 25
	for i := range n {
}
	if err != nil {
default:
	return nil
			line 51
		line 10
			line 51
			line 27
		line 2
		line 14
			line 11
line 4
		line 50
			line 43
		line 54

line 40
	for i := range n {
end
line 40
		line 18
	line 13
			line 3
	line 25
		line 26
		line 2
	line 17
	line 1
			line 3
			line 27
else {
			line 23
		line 42

		line 42
			line 27

			line 27
int main(void)
		s += i

end
		line 42
			line 27
	line 25
line 4
line 44
		line 2
	line 41
		line 2
	line 41
line 40
		line 18
	line 17
			line 15
		line 38
	line 37
			line 15
	line 45
		line 2
			line 23
line 24
line 16

line 28
			line 15
// Doc comment.
 

default:
// Doc comment.

 

default:
			line 27
			line 43
		line 34
line 12
		line 54
		line 30
}
			line 15
line 4
}
line 40
			line 35
			line 35
		line 14
line 28
			line 23
		line 46


		line 22
line 0
			line 43
	line 25
			line 31
line 4
	line 53
line 32
		line 26
			line 31
case 1:
		line 42
line 16
	line 33
line 20
			line 11
			line 39
	line 45
	line 9
	line 1
	line 25
		line 42
	line 45
			line 19
			line 7
line 0
		line 34
line 36
			line 15
			line 27
		line 2
			line 47
line 16
			line 31
			line 39
line 12
// Doc comment.
	if err != nil {
end
default:
		s += i
	return nil
{
	line 41
default:
			line 31
	}
			line 15
	}
		line 22
int main(void)
			line 19
		line 10
		line 50
		line 14
	line 13
		line 34
line 32
	line 37
	line 13

case 1:
	line 29
			line 23
case 1:
	line 29
			line 23
	line 25
line 16
line 0
			line 3
			line 27
			line 39
line 28
		line 6
		line 42
line 52
// Doc comment.

		line 54
			line 43
line 32
	line 13
			line 43
			line 3
	line 21
	line 5
			line 3
line 12
		line 22
		line 50
	line 13
		line 18
{
line 52
			line 19

		line 6
		line 38
line 24
			line 39
default:
int main(void)
	return nil
} else {
#include <stdio.h>
	line 29
		line 42
line 20
		line 22
line 4
	line 49
			line 35
	line 37
line 52
			line 11
		line 6
	line 21
line 20
			line 19
			line 47
end
{
 
			line 39
line 8
			line 31
			line 47
line 12
	line 13
	line 13
line 8
			line 35
{
		line 14
			line 19
line 4
	line 25
line 4
	line 9
		line 14
		line 14
			line 27
line 20
		line 2
line 52
line 32
		line 2
	line 33

#include <stdio.h>
{
	line 9
	line 17
int main(void)
	for i := range n {
// Doc comment.
	line 49
{
		line 18
	
}
else {
x
			line 11
		line 10
		line 6
		line 22
	for i := range n {
    four spaces
	for i := range n {
    four spaces
line 28
	line 41

		line 38
	line 1
line 32
line 20
		line 18
	line 45
	line 1
			line 51
	line 49
		line 30
	line 49

	line 13
	line 41
	line 45
	return nil
int main(void)
		line 26
			line 47
		line 54
	line 5
			line 19
		line 54
	line 5
			line 19
// Doc comment.
	printf("hi\n");
		return err
		s += i

end
	return nil
	x := y + 1
	line 29
			line 23
		line 54
	line 13
default:
x
{
			line 35
end
	line 17
			line 11
			line 23
		line 46
line 12

	line 33
		line 50
		line 26
		line 10
			line 31
	line 17
		line 30

			line 27
		line 34
			line 19
		line 46
		line 42
line 52
line 16
 
  indented with spaces


		line 46
			line 27
line 20
			line 11
			line 47
}
// Doc comment.
	line 45
line 28
	line 41
		line 6
		line 26
	line 45
	line 1
		line 50
line 28
			line 27

line 36
line 0
	line 5
		line 26
	line 25
	return nil
	
	if err != nil {
line 4
line 0
	printf("hi\n");
{
end

end

	line 33

	line 25
line 36
{
line 44
	line 17
		line 54
			line 43
}
	line 9
	line 25
			line 23
line 4
			line 31
  indented with spaces
end
		line 50
			line 23
		line 50
		line 26
int main(void)
			deep

	}
			line 39
	line 9
	line 29
		line 50
line 24
line 36
		line 26
	line 17
	line 21
			line 15
}
line 8
	line 21
			line 15
}
line 8
	line 37
			line 19
line 44
line 52
line 36
// Doc comment.
line 4
}
		line 14
		line 22
			line 27
line 32
    four spaces
// Doc comment.
	return nil
	for i := range n {
line 0
line 20
			line 39
			line 23

default:

}

		line 14
	line 25
	}
	line 29
line 8
	line 9
		line 10
			line 23
line 52
			line 7
	line 29
		line 18
{
func f() {
int main(void)
{
func f() {
int main(void)
	line 33
		line 14
line 52
		line 6
			line 3
}
		line 6
	line 5
		line 6

line 28
} else {
} else {
		return err
func f() {
			line 39
			line 3
			line 27
}
	line 49
line 24
line 52
		line 18
line 12
		line 42
		line 22
			line 15
		line 30
case 1:
    four spaces
		line 50
func f() {
	return nil

// Doc comment.
{
line 48
		line 30
case 1:
case 1:
    four spaces
    four spaces
		line 50
{
line 48
// Doc comment.
	line 17
	line 17
{
 
    four spaces
default:
	line 17
			line 3
		line 2
	line 17
	line 49
			line 23

	line 33
	line 21
	line 25

		line 14
			line 7
			line 39
			line 11
		line 10
		line 18
		line 30
			line 35
	line 53
	x := y + 1
 

case 1:
{

default:
	line 21
			line 19
line 20
		line 2
		line 22
}
	line 9
	line 1
	printf("hi\n");
} else {
	
	for i := range n {
		line 26

			line 43
line 52
		line 42
		line 6
		line 22
{
	line 49
		line 10
			line 39
	line 29
line 4
	return nil
			deep
		line 50
line 0
line 4
		line 54
line 24
	}
{
else {
#include <stdio.h>
	printf("hi\n");
	line 33
		line 30
	if err != nil {

	line 13
			line 51
line 12
	line 9
		line 26
int main(void)
			deep
	if err != nil {

	line 13
		line 18
			line 51
line 40

			line 15
line 20
		line 42
	line 29
		line 30
		line 18
	line 49
}
	line 53
line 40
			line 7
case 1:

  indented with spaces
	return nil
		line 18
		line 10
	line 41
}
		line 22

			line 27
		line 38
	}
			deep
  indented with spaces
		line 2
line 20
	line 49
	line 45
line 32
		line 14
		line 6
line 52
			line 7
	line 5
	line 37
		line 26
line 24
			line 11
		line 26
line 24
			line 11
	line 9

			line 35
	line 49
		line 18
			line 35
	line 1
		line 2
			line 15
		return err
line 12
	line 45
}
	
case 1:
end

	}
		line 30
		line 14
line 52
	line 9
			line 15
		line 34
	
line 36
line 44
		line 6

line 24
}
	line 5
		line 50
		line 22
		line 42
			line 15
line 32
{
// Doc comment.
 
	for i := range n {
		line 50
line 16
line 8
    four spaces
line 32

		line 18
	line 21
line 40
	line 17
	line 37
}
	line 25
line 32
	line 41
	line 41
		line 18
	line 49
	line 49
line 40
}
		line 22
		line 14
line 28
		line 14
	line 25
		line 30

			line 11
			line 47
line 48
// Doc comment.
x
	}
// Doc comment.
	line 13
			line 15
			line 51
	line 33
	line 1
		line 42
	line 17
		line 26
		line 6
	line 41
			line 7
line 48
line 16
line 16
	line 29
line 16

			line 3
}
			line 51
		line 38
		line 6
line 44
	line 21
line 52
		line 18
			line 39
			line 47
	line 53
			line 51
	line 41
			line 7
			line 15
		line 26
		line 34
line 8
			line 11
line 28


			line 31
		line 14

		line 34
line 12
  indented with spaces
	for i := range n {
	
// Doc comment.
}
	line 33
line 24
line 44
	line 1
line 12
			line 3
#include <stdio.h>
	if err != nil {
  indented with spaces
line 28
			line 35
	line 53
			line 15
		line 6
		line 2
	}
			line 35
line 20
line 16
			line 35
line 20
line 16
line 36
line 48
	}
 
line 48
	}
 
{
	line 37
			line 23
	line 5
line 40
	line 21
		line 2
		line 54
		line 30
			line 35
line 0
	printf("hi\n");
	x := y + 1
	}
			deep
line 16
	x := y + 1
	}
			deep
line 16
		line 38
line 52

	line 25
		line 14
	if err != nil {
else {
	for i := range n {
x
	for i := range n {
	if err != nil {
 
default:
line 52
		line 30
line 4
	line 25

	line 25
			line 7
			line 35
line 4
			line 51
func f() {
}
	printf("hi\n");
		return err
			line 23
#include <stdio.h>
else {
case 1:
  indented with spaces
  indented with spaces
x
		line 34
			line 19
			line 51
			line 11
			line 27

line 48
line 12
line 16
line 36
			line 35
			line 39
			line 51
line 48
			line 51
line 48
line 16
			line 31
		line 38
	line 17
line 40
	line 25
  indented with spaces
  indented with spaces
default:
	line 41
		line 38
			line 3
			line 3
		line 18
		line 34
line 36
line 40
			line 27


			line 27
	line 21
line 44
	line 5
			line 19
		line 50
		line 2
		line 30
line 52
	}
		line 50
	line 9
line 44
		line 6
		line 54
	line 25
		line 18
line 20
	line 5
line 8
line 52
	line 37
line 4
line 36
line 32
line 0
			line 19
			line 23
	line 33
line 52
	line 49
		line 50
{
case 1:
// Doc comment.
			line 15
default:
    four spaces
 
}
line 52
// Doc comment.
		line 6
		line 2
	line 21
case 1:

	x := y + 1
	for i := range n {
	line 33
line 8
			line 7
line 32
			line 3
	line 5
	line 49
{
		line 34
line 36
line 16
line 8
	line 37
line 24
		line 34
end

 
} else {
default:
#include <stdio.h>
	
		line 38
line 4
		line 6
line 48
			line 31
end
}
func f() {
func f() {
		line 42
line 24
		line 46
		line 22
			line 51
line 20
			line 7
		line 26
line 48
x
line 36
		line 34
			line 51
	line 49
		line 14
line 24
	line 17
	line 21
	line 53
int main(void)
		s += i
line 48
			line 51
	line 29
line 8
line 40
	line 37
int main(void)
	line 49
			line 43
			line 7
			line 47
line 24
			line 15
line 0
			line 19
	line 21
	line 1
			line 51
	line 1
			line 51
line 48

		line 46
line 36
case 1:
	return nil
		s += i
		line 34
		line 42
			line 11

		line 46
{
	line 25
		line 46
default:
			deep
	line 37
line 40
			line 43
line 32
{
line 24
	line 21
		line 2
	line 25
			line 27
		line 26
			line 7
	line 25
			line 35
line 48
line 32
line 40
			line 19
			line 19
line 52
	}
	}
	if err != nil {
		line 10
			line 43
line 16
	line 9
		line 50

	line 5
line 20

			line 51
case 1:
	line 1
case 1:
	line 1
		line 46
		line 50
		line 10
{
			line 47
	line 45

		line 42
		line 50
	line 25
	line 53
		line 22
		line 50
line 28
			line 7
		line 50

	line 41
			line 11
		line 50
			line 27
		line 42
		line 50
			line 27
		line 42
		line 22
			line 11
	if err != nil {

line 40
			line 35
		line 54
line 12
default:
    four spaces
  indented with spaces
	printf("hi\n");
	if err != nil {
func f() {
func f() {
{
			line 3
		line 50
		line 50
			line 7
line 48
}
    four spaces
    four spaces
	}
			line 19
	line 53
			line 27
			line 47
		line 30
		line 50
		line 30
			line 43
line 48
	line 45
line 28
	line 17
line 28
	line 17
line 12

}
			line 19
line 20
		line 18
line 16
		line 14
			line 15
		line 6
	
    four spaces
	line 1
	line 53
	line 13
		line 26
{
		line 30
	line 21
		line 14
		line 38
line 8
			line 43
	line 29
		line 30
line 28
line 28

	line 41
	line 21
	line 9
		line 14
line 12
}

		line 54
  indented with spaces
int main(void)
line 32
		line 38
line 28
{

		line 10

		return err
	printf("hi\n");
	line 49
			line 3
	line 29
		line 6
line 16
	}
line 40
		line 2
line 0
		line 46
		line 26
}
	line 41
		line 50
line 36
 
	if err != nil {
} else {
line 52
// Doc comment.
	for i := range n {
}
	line 53
	line 13
		line 6
line 44
		line 30
	return nil
		return err
    four spaces
    four spaces
			line 43
line 8
	line 5
	line 53
line 12
			line 35
// Doc comment.
		line 6
	x := y + 1
	printf("hi\n");
	printf("hi\n");
end
			line 51
	printf("hi\n");
	printf("hi\n");
end
			line 51
line 52
			line 27

		line 30
		line 46
	line 53
		line 42
		line 30
line 20
		line 26
			line 3
		line 50
			line 39
line 52
		line 50
	line 21
		line 46
			line 51
			line 31
		line 22
		line 50
			line 15
line 0

		s += i
}
func f() {
func f() {
else {
	if err != nil {
line 52
			line 35
	if err != nil {
func f() {
func f() {
case 1:
	if err != nil {
func f() {
func f() {
case 1:
	line 37
	}
	
} else {
else {
		line 30
		line 46
}
line 16

line 16

			line 15
	line 5
	line 37

	line 13
line 28
	line 29
			line 11
line 12
			line 7
	line 53
line 28
			line 23
}
{
	line 1
			line 39
line 52
case 1:
	}
			line 43
	line 13
			line 27
line 28
			line 31
		line 6
			line 27
	line 1
	line 25
line 0
			line 23
		line 42
line 44
	line 9
line 44
	line 9
line 48
	line 21
		line 2
			line 43
			line 7
		line 42
	line 33
line 8
	line 1
line 28
	}
	if err != nil {
			line 47
  indented with spaces
else {
line 40


	}

			line 11
line 4
}
			line 23
line 44
			line 11
{
		line 10
		line 34
	}
			line 19
  indented with spaces
		line 42
			line 23
line 4
default:

			line 51
line 24
	line 41
line 4
    four spaces
		line 42
		line 50
		s += i
	line 53
			line 35
		line 10
		line 2
		line 42
		line 50
		line 10
			line 35
line 28
	line 45
{
#include <stdio.h>

}

		line 30
line 32
line 0
	line 17
	line 17
line 8
line 4
			line 3
			line 23
	line 45
	line 53
		line 2
	line 45
	line 53
		line 2
			line 7
line 32
line 48
	line 9
}
line 48
	line 9
}
			line 11
			line 51
			line 51
	line 53
			line 7
		line 22
	line 5
		line 6
	line 25

line 52
	line 21
		line 26
	line 53
		line 10
line 20
		line 26
	line 53
		line 10
line 20
line 20
	line 13
	line 49
	line 41
// Doc comment.
		line 42
			line 11
line 44
	line 37
		line 42
	line 41
	line 9
line 32
			line 31
		return err


			line 31
			line 35
	line 5
		line 46
		line 46
		line 30

		line 14
	line 5
	line 1
line 40
			line 39
case 1:
case 1:
			line 3
line 20
	x := y + 1
func f() {
	if err != nil {
// Doc comment.
		return err
		return err
func f() {
	}
		line 38
			line 51
	}
line 48
			line 27
line 28
		line 50
		line 10
	line 33
end
 
	printf("hi\n");
	line 33
end
 
	printf("hi\n");
default:
			line 39
int main(void)
		return err
			deep
}
line 36
			line 15
	}
			line 31
		line 6
line 24
	line 5
		line 10
}
			line 19
			line 11
			line 11
			line 51
line 16
		line 50
	line 9
line 44
	line 45
			line 3
			line 27
line 0
			line 51
line 24
line 16
		line 50
			line 19
	line 9
line 24
#include <stdio.h>
{
	x := y + 1

default:
	printf("hi\n");
x
	line 1
		line 50
			line 35
line 16
line 40
line 16
	line 33
	line 9
	for i := range n {
	if err != nil {
	line 33
	line 29
	line 25
line 8
	line 49
// Doc comment.
			line 35
line 24
		line 46
			line 19
	line 41
	line 49
{
line 20
		line 50
		line 22
end
	for i := range n {

	line 41
		line 30
			line 47
			line 51
	line 21
	}
		line 30
line 4
line 48
		line 50
	line 25
	line 13
		line 46
line 20
}
 
	line 37
	line 5
		line 2
			line 27
	line 17
} else {
		s += i
	line 9
		line 34
			line 19
	line 41
	line 49
		line 2
	line 41
	line 49
		line 38
		line 2
	line 1
		line 22
	line 49
		line 18
	line 37
	if err != nil {
else {
case 1:
	}
		line 50
	line 13
		line 2
			line 51
	line 17
			line 47
  indented with spaces
}
	line 21
		line 50
line 8
	line 21
}
		line 14
		line 50
line 44
		line 14
		line 50
line 44
	line 5
			line 43
		line 54
line 36
line 8
			line 23
		line 18
	line 41
	return nil
		line 50
	line 45
		line 38
		line 26
			deep
line 44
	line 17
		line 22
			line 43

{
			line 47
line 48
		line 34
	line 33
			line 39
			line 43
		line 42
		line 50
			line 23
			line 15
default:
	x := y + 1
			deep
x
	line 5
			line 51
		line 50
line 40
		line 50
line 40
}
		line 10
	line 9
	line 37
			line 3
line 16
	line 9
	line 9
			line 43
  indented with spaces
	
	line 5
line 52
	line 37
			line 35
line 8

		line 50
line 40
line 16
line 44
	line 21
			line 43
		line 30
line 32
			line 23
	line 25
line 24
	line 53
		line 42
			line 47
line 8
			line 19
			line 11
			line 19
			line 11
#include <stdio.h>
line 32
			line 35
}
else {
			line 35
	for i := range n {
		s += i
			line 31
line 32
	line 37
			line 19
line 36
line 12
		line 18
	line 21
			line 35
			line 3
			line 7
line 52
			line 23
line 0
int main(void)
default:
	for i := range n {

			line 35
		line 50

			line 35
		line 50

line 0

case 1:
	}
default:
#include <stdio.h>
	x := y + 1
	}
	if err != nil {
		return err
default:
else {
	if err != nil {
	printf("hi\n");
// Doc comment.
} else {
line 36
	line 5
line 24
    four spaces
	line 5
line 24
    four spaces
	line 53
		line 14
	line 45
	line 41
			line 27
			line 31
			deep
	}
    four spaces
	
    four spaces
	for i := range n {
line 20
			line 47
line 40
		line 54
		line 50
	line 21

			line 51
    four spaces
		line 14
    four spaces
		line 14
	line 41
{
line 40
	line 29
	line 49
		line 18
	x := y + 1
	for i := range n {
    four spaces
line 48
line 0
line 20
line 24
	line 29
			line 51
			line 23
line 0
line 20
	line 17
	line 17
		line 46
		line 46

		line 54

line 8
		line 46
}
	line 37
			line 15
line 44
	line 33

#include <stdio.h>
	for i := range n {
}
{
	line 41
	line 37
	line 49
line 48
line 36
line 12
	line 25
{
	line 25
{
	line 13
		line 50
	line 25
{
	line 13
		line 50
line 4
		line 18
			line 31
		line 30
line 12
line 20
			line 51
line 4
	}
// Doc comment.
	line 29
	line 33
line 48

	line 17
	line 45
		line 26

#include <stdio.h>
// Doc comment.
end

			line 7
		line 38
			line 39
			line 19
			line 51
		line 50
}
else {
	printf("hi\n");
	line 29
line 36
line 32
line 28
}
line 48
line 36
		line 6
line 40
			line 11
		line 34
	line 17
			line 51
		line 50
	line 53
line 20
line 12
line 12
{
	line 53
{
			line 19
line 20
		line 2
		line 14

		line 2

// Doc comment.
case 1:
end
			line 43
	}
	line 1
		line 46
			line 11
line 20
line 0
	line 9
			line 31
		line 2
			line 27
		line 34
line 20
		line 30
		line 14
end
    four spaces
line 24
{

	line 21
line 28
			line 43
		line 30
		line 34
			line 15
line 40
		line 26
	}
		line 26
	line 45
		return err
line 40
		line 30
	printf("hi\n");
default:
		line 26
	line 1
			line 3
		line 22
		line 14
line 40
	line 49
	line 9
{
		line 54
		line 46
line 36
	line 17
}
		line 38
	line 45
	line 49
line 0
			line 23

{
		line 34
	line 45
		line 42
		line 14
		line 10
		line 22
		line 30
	line 1
			line 51
x
	line 53
		line 6
		line 22
			line 11
line 0
		line 6
	line 33
line 4
line 12

	line 49
		line 22
	line 41
			line 39
			line 19
			line 31
			line 39
		line 30
	line 29
		line 26
	line 45
	line 41
			line 27
		line 18
line 48
		line 50
		line 22
line 48
line 0
}
			line 23
			line 35
line 48
	line 17
line 36
line 16
line 4
line 8
line 28
	line 41
	line 1
} else {
	return nil

#include <stdio.h>
		line 2
	}
	}
		line 10
			line 15
		line 50
	line 25
	line 29
	line 9
		s += i
	}
	line 29
			line 47
			line 27

		line 18
		line 46
	line 49
			line 35
		line 10
line 12
			line 7
			line 39
		line 34
		line 46
	line 17
			line 51
	line 17
  indented with spaces
	for i := range n {
	return nil

	

			deep
  indented with spaces
			line 51
	}
			line 47
	line 29
			line 43
line 44
{
line 16
			line 39
	}
			line 23
	}

			line 23
			line 3
			line 3
	line 25
	for i := range n {

			line 39
			line 47
		line 14
		line 14
		line 22
line 44
line 28
line 0
} else {
	}
		line 30
		line 54
			line 3
		line 2
line 8
		line 14
		line 50
line 52
line 24
}

    four spaces
} else {
}
			line 39
		line 46
line 8
			line 19
	line 37
line 8
	line 13
		line 46

}
	
		line 14
			line 51
	line 5
		return err
}
end
#include <stdio.h>
		s += i
default:
else {
	line 5
	line 29
{
		line 10
			line 27
		s += i
	}

line 52
	line 33
	line 45
			line 3
}

line 48
			line 35
		line 14
} else {
	x := y + 1
default:
	
		line 34
		line 34
			line 39
	line 21
		line 10
line 28

line 44
		line 10

	line 49
		line 26
	line 25
 
	if err != nil {
			deep
default:
	line 41
	line 33
			line 3
line 48
line 4
		line 38
		line 10
		line 22
line 48
		line 34
		line 18
			line 35
{

line 32
	}

line 32
	}
	line 37

line 32
	}
	line 37
			line 51
line 8
line 52

			line 11
	line 9
	line 29
		line 2
	}
			line 31

			line 35
		line 6
			line 47
		line 46

	line 29
	line 37
		line 14
line 24
		line 50
		line 2
	line 49
	line 17
	line 5
		s += i
	

func f() {
		line 46
			line 47
	line 33

	line 9
{
			line 3
	line 25
		line 22
		line 18

// Doc comment.
	line 17
line 12
			line 47

line 36
}
line 12
line 20

	line 17
	x := y + 1
		return err
	line 29
line 8
	line 9
	
	for i := range n {
 
	if err != nil {
	line 37
	line 13
default:
  indented with spaces
else {
case 1:
{
	line 53
	line 13

			line 3
line 24
line 4
	if err != nil {
		return err
default:
	line 29
	line 33
	line 17
line 12
line 20
line 40
		line 38
line 32
	line 29
line 4

		line 26
			line 23
}
			line 47
			line 27
			line 15
		line 30
		line 10
			line 35
	line 25
	line 9
			line 23
	line 25
	line 9
	line 9
			line 23
	line 25
	line 9
			line 23
			line 27
			line 19
line 24
	line 9
			line 27
			line 19
line 24
	line 9
	line 29
	line 53
	line 17
line 20
	line 49
	line 13
			line 15
	}
line 32
		line 18
line 40
		line 14
	line 53

	}
		s += i
		line 10
			line 3
			line 19
		line 34
		line 10
	line 37
	line 13
else {
	
		s += i
 
 
default:
	line 17

		line 30
{
  indented with spaces
line 8
	}
	line 33

else {
	}
		return err

	line 53
		line 34
			line 51
		line 34
	line 29
} else {
line 40
	line 5
			line 35
line 36
		line 34
	line 25
line 32
		line 34
	line 25
		line 38
	line 13
#include <stdio.h>
	x := y + 1
	line 25
	line 33
line 0

			line 19
line 40
		line 38
	line 25
	line 41
line 20
			line 7
line 4
		line 54
line 0
	line 29
	line 17
}
		line 14
 
	x := y + 1
else {
  indented with spaces
	line 9
	line 1
	line 9
	line 53
line 36
line 4

	}
			line 39
		line 34
		line 42
		line 34

		line 18
line 20
	line 17
		line 54
		line 50
			line 47

		s += i
	x := y + 1
line 24
line 52
	line 33
line 4
}
			line 35
			line 15
{
line 32
		line 42
line 8
{
	x := y + 1
line 32
		line 42
{
	x := y + 1
line 8
line 24
		line 54
	line 37

	line 9
	line 17
		line 18
line 48
	line 33
			line 35
	line 53
line 36
line 40
			line 3
		s += i
 
	
		line 10
line 36
		line 54
line 0
		line 42
	line 5
line 12
			line 11
	line 13
	x := y + 1
  indented with spaces
	x := y + 1
		line 18
line 32
		line 26
line 8
{
