/* The least a client of locationd's control socket can be: connect, send ?LAST;,
 * print the answer's first read. What `locationd last` costs beyond it is the
 * start of the Swift binary and its formatting. Usage: control-last SOCKET */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: control-last SOCKET\n");
        return 64;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror(argv[1]);
        return 69;
    }
    if (write(fd, "?LAST;\n", 7) != 7) {
        perror("write");
        return 74;
    }
    char buffer[4096];
    ssize_t count = read(fd, buffer, sizeof buffer);
    if (count <= 0) return 74;
    fwrite(buffer, 1, (size_t)count, stdout);
    return 0;
}
