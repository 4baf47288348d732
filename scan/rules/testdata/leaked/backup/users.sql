CREATE TABLE users (id int, name varchar(64), email varchar(128), password varchar(128));
INSERT INTO users VALUES (1,'admin','admin@acme.io','$2y$10$tTdnDO6wa3rUyKLVBf0tWHVt48fKJYCOF7RFFbFgJ6GmPsgZQuFh6');
INSERT INTO users VALUES (2,'ops','ops@acme.io','$2y$10$LedegcyTp301ITL28/UOh6hG41/z/Gnx5NVzaLZV85bgZbkT8FS5o');
